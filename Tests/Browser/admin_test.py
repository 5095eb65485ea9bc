"""The admin page in a real headless Chromium (*The admin page*), JavaScript off, against a running `mdmconf serve`.

Run by Tests/Browser/run.sh, which starts the servers and passes their addresses:
    admin_test.py FOLDER_SERVER_URL FROM_STORE_SERVER_URL SCREENSHOT_DIR BROKEN_PLIST ROLLOUT_SERVER_URL

Each check is one test; the summary line `browser tests: N passed, M failed` is what CI prints.
"""

import os
import sys
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.support.ui import Select, WebDriverWait

FOLDER, FROM_STORE, SHOTS, BROKEN, ROLLOUT = sys.argv[1:6]
ADMIN = "example-admin-token-c0ffee"
DEVICE = "example-device-token-iphone-0117"


def browser(width=1280, height=900):
    options = Options()
    options.add_argument("--headless=new")
    options.add_argument("--no-sandbox")
    options.add_argument("--disable-dev-shm-usage")
    options.add_argument("--disable-gpu")
    options.add_argument(f"--window-size={width},{height}")
    # The page must work with JavaScript off: every test runs without it.
    options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    binary = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    if os.path.exists(binary):
        options.binary_location = binary
    driver_path = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
    service = Service(driver_path) if os.path.exists(driver_path) else Service()
    driver = webdriver.Chrome(options=options, service=service)
    driver.set_page_load_timeout(60)
    return driver


def shot(driver, name):
    os.makedirs(SHOTS, exist_ok=True)
    height = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]["height"]
    width = driver.get_window_size()["width"]
    driver.set_window_size(width, min(max(900, int(height) + 140), 6000))
    driver.save_screenshot(os.path.join(SHOTS, name + ".png"))


def gone(element):
    """True once `element` no longer belongs to the page. During a navigation Chromium may answer with a stale
    element or with "Node with given id does not belong to the document": both mean the old page is gone."""
    def check(_):
        try:
            element.is_enabled()
            return False
        except (StaleElementReferenceException, WebDriverException):
            return True
    return check


def click_and_wait(driver, element):
    """Clicks a button or link that loads a new page, and waits until the old page is gone."""
    old = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 30).until(gone(old))
    WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.TAG_NAME, "footer"))


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def expect(condition, message):
    if not condition:
        raise AssertionError(message)


def log_in(driver, base, token):
    driver.get(base + "/admin/login")
    field = driver.find_element(By.ID, "token")
    field.clear()
    field.send_keys(token)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]"))


results = []


def test(name):
    def register(function):
        results.append((name, function))
        return function

    return register


@test("a device token cannot log in")
def device_token(driver):
    log_in(driver, FOLDER, DEVICE)
    body = text(driver)
    expect("device token" in body, body)
    expect("/admin/login" in driver.current_url, driver.current_url)
    log_in(driver, FOLDER, "not-a-token")
    expect("not in this catalog" in text(driver), text(driver))
    driver.get(FOLDER + "/admin/fleet")
    expect("/admin/login" in driver.current_url, "a page without a session goes to the login form")
    shot(driver, "00-login")


@test("log in with the example admin token and see the overview")
def overview(driver):
    log_in(driver, FOLDER, ADMIN)
    body = text(driver)
    expect(driver.current_url.rstrip("/").endswith("/admin"), driver.current_url)
    for expected in ["Catalog", "com.example.field", "com.example.fieldsync", "Fleet", "Compliant"]:
        expect(expected in body, f"no '{expected}' on the overview: {body[:600]}")
    expect(driver.find_elements(By.CSS_SELECTOR, "svg.chart"), "the fleet chart is inline SVG")
    shot(driver, "01-overview")


@test("the app page: schema table, configurations, as served to a device")
def app_page(driver):
    driver.get(FOLDER + "/admin")
    click_and_wait(driver, driver.find_element(By.LINK_TEXT, "com.example.field"))
    body = text(driver)
    expect("Schema" in body and "KEY" in body.upper(), body[:400])
    expect("config.plist" in body and "configs/warehouse.plist" in body, "each configuration and variant is listed")
    Select(driver.find_element(By.ID, "device")).select_by_value("ipad-0042")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#served ~ form button, form.inline button"))
    body = text(driver)
    expect("warehouse" in body, "ipad-0042 gets the warehouse variant")
    expect("dock.team@example.com" in body, "variables are substituted as served")
    expect('"' in driver.find_element(By.XPATH, "//dt[text()='ETag (plist)']/following-sibling::dd").text, "ETag shown")
    shot(driver, "02-app")


@test("the app page of an app on both platforms: the Android device is served its JSON")
def android_app_page(driver):
    driver.get(FOLDER + "/admin/apps/com.example.fieldsync")
    body = text(driver)
    expect("config.plist" in body and "config.json" in body, "the plist and the Android JSON are both listed")
    Select(driver.find_element(By.ID, "device")).select_by_value("pixel-0500")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#served ~ form button, form.inline button"))
    platform = driver.find_element(By.XPATH, "//dt[text()='Platform']/following-sibling::dd").text
    expect(platform == "Android (JSON)", f"pixel-0500 is an Android device: {platform}")
    served = driver.find_element(By.CSS_SELECTOR, "pre[aria-label='configuration served to pixel-0500']").text
    expect('"device_tag": "serial-2B281FDH3000K5"' in served, f"its JSON, variables substituted: {served[:400]}")
    Select(driver.find_element(By.ID, "device")).select_by_value("iphone-0400")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#served ~ form button, form.inline button"))
    served = driver.find_element(By.CSS_SELECTOR, "pre[aria-label='configuration served to iphone-0400']").text
    expect("<key>Accounts</key>" in served, "an iPhone is served the plist")


@test("validate: a broken plist pasted and uploaded shows its findings with line numbers")
def validate(driver):
    driver.get(FOLDER + "/admin/validate")
    Select(driver.find_element(By.ID, "app")).select_by_value("com.example.field")
    with open(BROKEN, encoding="utf-8") as handle:
        broken = handle.read()
    area = driver.find_element(By.ID, "plist")
    area.send_keys(broken)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]"))
    body = text(driver)
    expect("Not valid" in body, body[:800])
    expect("pasted.plist:" in body, "findings name the line: " + body[:1200])
    expect("MC" in body, "findings carry their codes")
    driver.get(FOLDER + "/admin/validate")
    Select(driver.find_element(By.ID, "app")).select_by_value("com.example.field")
    driver.find_element(By.ID, "file").send_keys(os.path.abspath(BROKEN))
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]"))
    body = text(driver)
    name = os.path.basename(BROKEN)
    expect(f"{name}:" in body and "Not valid" in body, "the upload is validated under its file name: " + body[:800])
    shot(driver, "03-validate")


@test("update what-if: a version below the minimum on iOS is required, with the deadline in the device's zone")
def update(driver):
    driver.get(FOLDER + "/admin/update")
    Select(driver.find_element(By.ID, "f-app")).select_by_value("com.example.field")
    for name, value in [("version", "2.3.1"), ("osVersion", "17.4"), ("timeZone", "America/Sao_Paulo"),
                        ("deviceId", "iphone-0117"), ("now", "2026-11-30T09:00:00Z")]:
        field = driver.find_element(By.ID, "f-" + name)
        field.clear()
        field.send_keys(value)
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]"))
    body = text(driver)
    expect("Decision: required" in body, body[:800])
    expect("field-3.0-floor: below_min_version" in body, "the reason is shown with its policy: " + body[:1200])
    # The policy's deadline, 2026-07-01T09:00:00 without an offset, is read in the device's zone: 12:00 UTC in
    # São Paulo (UTC-3). The policy's default zone, Europe/Berlin (UTC+2 in July), would make it 07:00 UTC.
    expect("deadline fail (now 2026-11-30T09:00:00Z at or after 2026-07-01T12:00:00Z)" in body,
           "the deadline in the device's zone: " + body[-1500:])
    driver.get(FOLDER + "/admin/update?app=com.example.field&version=2.3.1&platform=ios&osVersion=17.4"
               "&now=2026-11-30T09%3A00%3A00Z")
    expect("at or after 2026-07-01T07:00:00Z" in text(driver), "no zone given: the policy's own zone")
    driver.get(FOLDER + "/admin/update?app=com.example.field&version=3.0.0&platform=ios&osVersion=15.7")
    body = text(driver)
    expect("Decision: ok" in body and "field-3.2-recommended: not_in_rollout" in body,
           "3.0.0 meets the floor; without a device id the staged recommendation skips it: " + body[-1500:])
    driver.get(FOLDER + "/admin/update?app=com.example.field&version=three&platform=ios")
    expect("invalid_version" in text(driver), "a bad version is named")
    driver.get(FOLDER + "/admin/update?app=com.example.field&version=2.3.1&platform=ios&osVersion=17.4"
               "&timeZone=America%2FSao_Paulo&now=2026-11-30T09%3A00%3A00Z")
    shot(driver, "04-update-what-if")


@test("policy what-if: URL, app, Wi-Fi, kiosk and VPN questions get answers with their rules")
def policy(driver):
    # (question, argument, answer, the deciding rules with the line of the profile that holds each)
    asks = [
        ("url", "https://admin.acme.com/login", "deny", ["URL_DENYLISTED 30-web-filter.mobileconfig:51:17"]),
        ("url", "https://portal.acme.com/kiosk/", "allow", ["URL_ALLOWLISTED 30-web-filter.mobileconfig:32:21"]),
        ("app", "com.acme.storefront", "allow",
         ["KIOSK_APP 10-app-lock.mobileconfig:29:17", "APP_ALLOWLISTED 20-restrictions.mobileconfig:30:17"]),
        ("app", "com.example.games", "deny", ["20-restrictions.mobileconfig"]),
        ("wifi", "ACME-Store", "allow",
         ["SSID_ALLOWLISTED 40-wifi.mobileconfig:62:17", "PROFILE_NETWORK 40-wifi.mobileconfig:27:13"]),
        ("wifi", "Free Public WiFi", "deny", ["40-wifi.mobileconfig"]),
        ("kiosk", "", "ok", ["KIOSK_ACTIVE 10-app-lock.mobileconfig:29:17"]),
        ("vpn", "", "ok", ["ALWAYS_ON_ENFORCED 50-vpn.mobileconfig:29:13"]),
    ]
    for kind, argument, answer, rules in asks:
        driver.get(FOLDER + "/admin/policy")
        Select(driver.find_element(By.ID, "type")).select_by_value(kind)
        field = driver.find_element(By.ID, "arg")
        field.clear()
        if argument:
            field.send_keys(argument)
        # A fixed time on a weekday at noon, so the after-hours schedule of the example profiles is inactive.
        field = driver.find_element(By.ID, "at")
        field.clear()
        field.send_keys("2026-11-30T12:00:00+01:00")
        click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]"))
        body = text(driver)
        expect(f"Answer: {answer}" in body, f"{kind} {argument}: expected {answer}: {body[:900]}")
        deciding = [row.text for row in driver.find_elements(By.CSS_SELECTOR, "table tbody tr")]
        for rule in rules:
            code, _, where = rule.partition(" ")
            if not where:
                code, where = "", code
            expect(any(code in row and where in row for row in deciding),
                   f"{kind} {argument}: no deciding rule {rule} in {deciding}")
    driver.get(FOLDER + "/admin/policy?type=url&arg=https%3A%2F%2Fadmin.acme.com%2Flogin")
    shot(driver, "05-policy-what-if")


def device_rows(driver):
    """The fleet page's device table: device id → the text of each cell."""
    table = driver.find_element(By.XPATH, "//h2[@id='devices']/following::table[1]")
    rows = {}
    for row in table.find_elements(By.CSS_SELECTOR, "tbody tr"):
        cells = [cell.text.strip() for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
        rows[cells[0]] = cells
    return rows


@test("fleet: devices with reasons, filters, a version chart and a device page")
def fleet(driver):
    driver.get(FOLDER + "/admin/fleet")
    body = text(driver)
    expect("iphone-0117" in body and "ipad-0042" in body, body[:800])
    expect(driver.find_elements(By.CSS_SELECTOR, "figure svg.chart"), "versions per app as inline SVG")
    rows = device_rows(driver)
    expect("required (below_min_version" in rows.get("ipad-0042", ["", "", "", "", "", "", ""])[6],
           f"rows carry their reasons: {rows.get('ipad-0042')}")
    expect("required (blocked_version)" in rows.get("iphone-0202", ["", "", "", "", "", "", ""])[6],
           f"rows carry their reasons: {rows.get('iphone-0202')}")
    ddm = rows.get("iphone-0400", [""] * 7)
    expect(ddm[5] == "ddm" and "config error (Error.ConfigurationInvalid: ServerPort must be an integer)" in ddm[6],
           f"a device configured by DDM shows its channel and the device's reason: {ddm}")
    expect(rows.get("iphone-0117", [""] * 7)[5] == "http", f"a device that checks in: {rows.get('iphone-0117')}")
    shot(driver, "06-fleet")
    # run.sh checks in one compliant device (iphone-0117) and three that are not.
    for status, compliant, present, absent in [("compliant", "yes", "iphone-0117", "ipad-0042"),
                                               ("noncompliant", "no", "ipad-0042", "iphone-0117")]:
        driver.get(FOLDER + "/admin/fleet")
        Select(driver.find_element(By.ID, "status")).select_by_value(status)
        click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.grid button[type=submit]"))
        rows = device_rows(driver)
        expect(present in rows and absent not in rows, f"the {status} filter: {sorted(rows)}")
        expect(all(cells[1] == compliant for cells in rows.values()),
               f"the {status} filter shows only devices with Compliant '{compliant}': {rows}")
    driver.get(FOLDER + "/admin/fleet/devices/iphone-0117")
    body = text(driver)
    expect("Recent check-ins" in body and "com.example.field" in body, body[:800])
    shot(driver, "07-device")
    driver.get(FOLDER + "/admin/fleet/devices/iphone-0400")
    body = text(driver)
    expect("ddm (state managed, config invalid)" in body and "ServerPort must be an integer" in body,
           "the device page shows the DDM states and the reason: " + body[:1200])


@test("history: generations, a diff, and a rollback with confirmation")
def history(driver):
    driver.get(FOLDER + "/admin/history")
    body = text(driver)
    expect("publish" in body, body[:800])
    click_and_wait(driver, driver.find_element(By.LINK_TEXT, "2"))
    body = text(driver)
    expect("Changes against generation 1" in body, body[:800])
    shot(driver, "08-history-diff")
    driver.get(FOLDER + "/admin/history/1")
    click_and_wait(driver, driver.find_element(By.PARTIAL_LINK_TEXT, "Roll back to generation 1"))
    expect("Roll back to generation 1?" in text(driver), text(driver)[:600])
    shot(driver, "09-rollback-confirm")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
    body = text(driver)
    expect("published again as generation 3" in body, body[:800])
    driver.get(FOLDER + "/admin/history")
    expect("rollback of 1" in text(driver), "the rollback is in the history")
    shot(driver, "10-history")


@test("events: the endpoints, their deliveries and the failing ones")
def events(driver):
    log_in(driver, FROM_STORE, ADMIN)
    driver.get(FROM_STORE + "/admin/events")
    deadline = time.time() + 20
    # The publish of generation 2 is sent to an endpoint where nothing listens: it fails, and is tried again.
    while "no answer" not in text(driver) and time.time() < deadline:
        time.sleep(0.5)
        driver.get(FROM_STORE + "/admin/events")
    body = text(driver)
    expect("Endpoints" in body and "ops" in body, body[:800])
    expect("io.mdmconf.catalog.published" in body, body[:800])
    expect("no answer" in body, "the failing delivery is listed with its last failure: " + body[:1200])
    shot(driver, "11-events")


@test("a server following the store serves a rollback made on its admin page at once")
def from_store(driver):
    log_in(driver, FROM_STORE, ADMIN)
    expect("Generation\n2" in text(driver) or "Generation 2" in text(driver), text(driver)[:400])
    driver.get(FROM_STORE + "/admin/history/1/rollback")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "button.danger"))
    expect("this server serves it now" in text(driver), text(driver)[:600])
    driver.get(FROM_STORE + "/admin")
    expect("Generation\n3" in text(driver) or "Generation 3" in text(driver), text(driver)[:400])


@test("a form posted from another site is refused, and logging out ends the session")
def forged_and_logout(driver):
    driver.get(FOLDER + "/admin/history")
    before = text(driver).count("rollback of")
    page = ('<form method="post" action="%s/admin/history/1/rollback"><input name="message" value="forged">'
            '<button id="go" type="submit">go</button></form>') % FOLDER
    driver.get("data:text/html;charset=utf-8," + page)
    click_and_wait(driver, driver.find_element(By.ID, "go"))
    expect("Form expired" in text(driver) or "/admin/login" in driver.current_url,
           "a cross-site form gets no session (SameSite=Strict) or fails the CSRF check: " + text(driver)[:300])
    driver.get(FOLDER + "/admin/history")
    expect(text(driver).count("rollback of") == before, "the forged rollback published nothing")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "form.logout button"))
    expect("/admin/login" in driver.current_url, driver.current_url)
    driver.get(FOLDER + "/admin")
    expect("/admin/login" in driver.current_url, "after logout the overview needs a login again")


def layout(driver):
    """The page's content width and viewport width (CSS pixels), and the left edges of the fleet counts' terms
    and of the filter form's fields."""
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    terms = {round(e.rect["x"]) for e in driver.find_elements(By.CSS_SELECTOR, "dl.counts dt")}
    fields = {round(e.rect["x"]) for e in driver.find_elements(By.CSS_SELECTOR, "form.grid select")}
    return metrics["cssContentSize"]["width"], metrics["cssLayoutViewport"]["clientWidth"], terms, fields


@test("the overview and the fleet page at phone width: one column, nothing wider than the screen")
def phone(driver):
    driver.set_window_size(1280, 900)
    log_in(driver, FOLDER, ADMIN)
    driver.get(FOLDER + "/admin/fleet")
    _, _, terms, fields = layout(driver)
    expect(len(terms) > 1 and len(fields) > 1, f"at desktop width the counts and filters sit side by side: {terms} {fields}")
    driver.set_window_size(390, 844)
    driver.get(FOLDER + "/admin")
    expect("com.example.field" in text(driver), "the overview renders at phone width")
    for path in ["/admin", "/admin/fleet", "/admin/update", "/admin/fleet/devices/iphone-0117",
                 "/admin/policy?type=url&arg=https%3A%2F%2Fadmin.acme.com%2Flogin", "/admin/history/2"]:
        driver.get(FOLDER + path)
        content, viewport, terms, fields = layout(driver)
        expect(content <= viewport, f"{path}: the page is {content} px wide on a {viewport} px screen")
        expect(len(terms) <= 1 and len(fields) <= 1, f"{path}: one column at phone width: {terms} {fields}")
        nav = driver.find_element(By.TAG_NAME, "nav").rect
        expect(nav["x"] >= 0 and nav["x"] + nav["width"] <= viewport, f"{path}: the navigation fits: {nav}")
    driver.get(FOLDER + "/admin")
    shot(driver, "11-overview-phone")


@test("rollout: the panel shows rings, health and steps; its buttons advance and pause it; a forged step is refused")
def rollout(driver):
    # Last: this server shares the folder server's host name, so its session replaces that one.
    driver.set_window_size(1280, 900)
    log_in(driver, ROLLOUT, ADMIN)
    driver.get(ROLLOUT + "/admin/rollout")
    body = text(driver)
    expect("Rollout of generation 2" in body and "rolling" in body, body[:800])
    expect("group warehouse" in body and "Moved devices\n1" in body, body[:1200])
    # A step posted from another site carries no session and no CSRF token: nothing moves.
    page = ('<form method="post" action="%s/admin/rollout/2"><input name="action" value="complete">'
            '<button id="go" type="submit">go</button></form>') % ROLLOUT
    driver.get("data:text/html;charset=utf-8," + page)
    click_and_wait(driver, driver.find_element(By.ID, "go"))
    expect("Form expired" in text(driver) or "/admin/login" in driver.current_url, text(driver)[:300])
    log_in(driver, ROLLOUT, ADMIN)
    driver.get(ROLLOUT + "/admin/rollout")
    expect("rolling" in text(driver) and "complete" not in text(driver).split("Steps\n")[-1], text(driver)[:1500])
    click_and_wait(driver, driver.find_element(By.XPATH, "//button[starts-with(., 'Advance to 50%')]"))
    body = text(driver)
    expect("Generation 2 is rolling at 50%." in body, body[:800])
    click_and_wait(driver, driver.find_element(By.XPATH, "//button[.='Pause']"))
    body = text(driver)
    expect("Generation 2 is paused at 50%." in body and "admin page" in body, body[:1500])
    expect(driver.find_elements(By.XPATH, "//button[.='Resume']"), "a paused rollout offers Resume")
    driver.get(ROLLOUT + "/readyz")
    deadline = time.time() + 20
    while '"phase":"paused"' not in text(driver).replace(" ", "") and time.time() < deadline:
        time.sleep(0.3)
        driver.get(ROLLOUT + "/readyz")
    expect('"phase":"paused"' in text(driver).replace(" ", ""), "the server follows the step: " + text(driver)[:400])
    # The fleet page can show one generation's devices: the warehouse iPad has generation 2.
    driver.get(ROLLOUT + "/admin/fleet?generation=2")
    expect(driver.find_elements(By.ID, "generation") and "ipad-0042" in text(driver), text(driver)[:1200])
    driver.get(ROLLOUT + "/admin/fleet?generation=1")
    expect("ipad-0042" not in text(driver), text(driver)[:1200])
    driver.get(ROLLOUT + "/admin/rollout")
    shot(driver, "12-rollout")


def main():
    driver = browser()
    passed = failed = 0
    try:
        for name, function in results:
            try:
                function(driver)
                passed += 1
                print(f"✔ browser: {name}")
            except Exception:  # noqa: BLE001 - every failure is reported and counted
                failed += 1
                print(f"✘ browser: {name}")
                traceback.print_exc()
                try:
                    shot(driver, "failed-" + name.split(":")[0].replace(" ", "-"))
                except Exception:  # noqa: BLE001
                    pass
    finally:
        driver.quit()
    print(f"browser tests: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
