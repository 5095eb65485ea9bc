/// The admin page's Mustache templates (*The admin page*). Every `{{value}}` is HTML-escaped by the renderer; the only
/// triple-mustache is `{{{svg}}}`, markup the page builds itself from escaped text (`BarChart`). No inline
/// scripts or styles: the Content-Security-Policy allows neither.
enum AdminTemplates {
    static let all: [String: String] = [
        "head": head, "foot": foot, "findings": findings, "overview": overview, "app": app, "validate": validate,
        "update": update, "policy": policy, "fleet": fleet, "device": device, "history": history,
        "generation": generation, "rollback": rollback, "login": login, "problem": problem, "events": events,
        "rollout": rollout,
    ]

    static let head = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · mdmconf admin</title>
        <link rel="stylesheet" href="/admin/style.css">
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
        <a class="brand" href="/admin">mdmconf</a>
        {{#chrome.signedIn}}
        <nav aria-label="Sections">
        <a href="/admin"{{#nav.overview}} aria-current="page"{{/nav.overview}}>Overview</a>
        <a href="/admin/validate"{{#nav.validate}} aria-current="page"{{/nav.validate}}>Validate</a>
        <a href="/admin/update"{{#nav.update}} aria-current="page"{{/nav.update}}>Update what-if</a>
        <a href="/admin/policy"{{#nav.policy}} aria-current="page"{{/nav.policy}}>Policy what-if</a>
        {{#chrome.fleet}}<a href="/admin/fleet"{{#nav.fleet}} aria-current="page"{{/nav.fleet}}>Fleet</a>
        <a href="/admin/history"{{#nav.history}} aria-current="page"{{/nav.history}}>History</a>
        <a href="/admin/rollout"{{#nav.rollout}} aria-current="page"{{/nav.rollout}}>Rollout</a>
        <a href="/admin/events"{{#nav.events}} aria-current="page"{{/nav.events}}>Events</a>{{/chrome.fleet}}
        </nav>
        {{#chrome.csrf}}<form class="logout" method="post" action="/admin/logout"><input type="hidden" name="csrf" value="{{chrome.csrf}}"><button type="submit">Log out</button></form>{{/chrome.csrf}}
        {{/chrome.signedIn}}
        </header>
        {{#chrome.development}}<p class="banner" role="status"><strong>Development mode.</strong> This catalog has no tokens file, so this page is open without logging in to anyone who can reach {{chrome.host}}. Add a tokens.plist before the server leaves this machine.</p>{{/chrome.development}}
        <main id="main">
        """

    static let foot = """
        </main>
        <footer><p>mdmconf · catalog generation {{chrome.generation}} · rendered {{chrome.now}}</p></footer>
        </body>
        </html>
        """

    /// A list of diagnostics: a table a person scans, then the compiler-style text with source excerpts.
    static let findings = """
        {{#findings.any}}
        <div class="scroll"><table class="findings">
        <caption>{{findings.summary}}</caption>
        <thead><tr><th scope="col">Where</th><th scope="col">Severity</th><th scope="col">Code</th><th scope="col">Message</th><th scope="col">Key path</th><th scope="col">Hint</th></tr></thead>
        <tbody>
        {{#findings.rows}}<tr class="{{severity}}"><td class="where">{{place}}</td><td><span class="badge {{severity}}">{{severity}}</span></td><td><code>{{code}}</code></td><td>{{message}}</td><td><code>{{keyPath}}</code></td><td>{{hint}}</td></tr>
        {{/findings.rows}}
        </tbody>
        </table></div>
        <details{{#findings.open}} open{{/findings.open}}><summary>As the CLI prints them</summary><pre class="diagnostics">{{findings.text}}</pre></details>
        {{/findings.any}}
        """

    static let overview = """
        {{> head}}
        <h1>Catalog</h1>
        <dl class="facts">
        <dt>Generation</dt><dd>{{catalog.generation}}</dd>
        <dt>Loaded at</dt><dd>{{catalog.loadedAt}}</dd>
        <dt>Source</dt><dd><code>{{catalog.source}}</code></dd>
        <dt>Apps</dt><dd>{{catalog.appCount}}</dd>
        <dt>Devices in the inventory</dt><dd>{{catalog.deviceCount}}</dd>
        <dt>Profiles</dt><dd>{{catalog.profileCount}}</dd>
        </dl>
        {{#reloadError}}
        <section class="alert" aria-labelledby="reload-error">
        <h2 id="reload-error">The last reload failed</h2>
        <p>At {{at}} the catalog did not load ({{count}} errors); generation {{catalog.generation}} is still served.</p>
        {{> findings}}
        </section>
        {{/reloadError}}
        <section aria-labelledby="apps">
        <h2 id="apps">Apps</h2>
        <div class="scroll"><table>
        <thead><tr><th scope="col">App</th><th scope="col">Schema</th><th scope="col">Variants</th><th scope="col">Update policy</th><th scope="col">Validation</th></tr></thead>
        <tbody>
        {{#apps}}<tr><td><a href="/admin/apps/{{id}}">{{id}}</a></td><td>{{schema}}</td><td>{{variants}}</td><td>{{policy}}</td><td><span class="badge {{badgeClass}}">{{badge}}</span></td></tr>
        {{/apps}}
        </tbody>
        </table></div>
        </section>
        {{#warnings}}
        <section aria-labelledby="warnings"><h2 id="warnings">Catalog warnings</h2>{{> findings}}</section>
        {{/warnings}}
        {{#fleet}}
        <section aria-labelledby="fleet-summary">
        <h2 id="fleet-summary">Fleet</h2>
        {{#available}}
        <dl class="facts counts">
        <dt>Devices</dt><dd>{{devices}}</dd><dt>Compliant</dt><dd>{{compliant}}</dd><dt>Non-compliant</dt><dd>{{noncompliant}}</dd><dt>Silent</dt><dd>{{silent}}</dd><dt>Never seen</dt><dd>{{never}}</dd>
        </dl>
        {{{svg}}}
        <p class="note">Counted {{countedAt}}.{{#note}} {{note}}{{/note}} <a href="/admin/fleet">Every device</a></p>
        {{/available}}
        {{^available}}<p class="alert">{{problem}}</p>{{/available}}
        </section>
        {{/fleet}}
        {{> foot}}
        """

    static let app = """
        {{> head}}
        <h1>{{id}}</h1>
        <p>{{title}}</p>
        <section aria-labelledby="schema">
        <h2 id="schema">Schema</h2>
        <p><code>{{schemaPath}}</code> ({{schemaFormat}}), {{keyCount}} keys.</p>
        <div class="scroll"><table class="schema">
        <thead><tr>{{#schemaHeader}}<th scope="col">{{.}}</th>{{/schemaHeader}}</tr></thead>
        <tbody>
        {{#schemaRows}}<tr>{{#cells}}<td>{{.}}</td>{{/cells}}</tr>
        {{/schemaRows}}
        </tbody>
        </table></div>
        </section>
        <section aria-labelledby="configs">
        <h2 id="configs">Configurations</h2>
        {{#configs}}
        <article class="config">
        <h3>{{name}}</h3>
        <p>{{what}} <span class="badge {{badgeClass}}">{{badge}}</span></p>
        {{> findings}}
        {{#xml}}<details><summary>Content (sensitive values redacted)</summary><pre class="plist">{{xml}}</pre></details>{{/xml}}
        </article>
        {{/configs}}
        </section>
        <section aria-labelledby="served">
        <h2 id="served">As served to a device</h2>
        <form method="get" action="/admin/apps/{{id}}#served" class="inline">
        <label for="device">Device</label>
        <select id="device" name="device">{{#devices}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{id}}{{#group}} ({{group}}){{/group}}</option>{{/devices}}</select>
        <button type="submit">Show</button>
        </form>
        {{#served}}
        <dl class="facts">
        <dt>Device</dt><dd>{{device}}</dd><dt>Platform</dt><dd>{{platform}}</dd><dt>Variant</dt><dd>{{variant}}</dd><dt>ETag (plist)</dt><dd><code>{{etag}}</code></dd><dt>ETag (JSON)</dt><dd><code>{{jsonETag}}</code></dd><dt>Redacted values</dt><dd>{{redactedCount}}</dd>
        </dl>
        <pre class="plist" aria-label="configuration served to {{device}}">{{xml}}</pre>
        {{/served}}
        {{#problem}}<p class="alert">{{problem}}</p>{{/problem}}
        </section>
        <section aria-labelledby="update">
        <h2 id="update">Update policy</h2>
        {{#policyText}}<pre>{{policyText}}</pre>{{/policyText}}
        {{^policyText}}<p>This app has no update-policy.plist: every version is <strong>ok</strong>.</p>{{/policyText}}
        <p><a href="/admin/update?app={{id}}">Ask what happens to a version</a></p>
        </section>
        {{> foot}}
        """

    static let validate = """
        {{> head}}
        <h1>Validate a configuration</h1>
        <p>Paste or upload a plist (XML, binary or JSON); it is checked against the app's schema exactly as <code>mdmconf validate</code> checks it. Nothing is stored.</p>
        <form method="post" action="/admin/validate" enctype="multipart/form-data" class="stack">
        <input type="hidden" name="csrf" value="{{chrome.csrf}}">
        <label for="app">App</label>
        <select id="app" name="app" required>{{#apps}}<option value="{{id}}"{{#selected}} selected{{/selected}}>{{id}}</option>{{/apps}}</select>
        <label for="plist">Configuration text</label>
        <textarea id="plist" name="plist" rows="14" spellcheck="false">{{text}}</textarea>
        <label for="file">…or a file</label>
        <input id="file" name="file" type="file" accept=".plist,.xml,.json,application/x-plist,application/xml">
        <button type="submit">Validate</button>
        </form>
        {{#result}}
        <section aria-labelledby="result" class="result">
        <h2 id="result">{{headline}}</h2>
        <p><span class="badge {{badgeClass}}">{{badge}}</span> {{file}} against <code>{{schema}}</code></p>
        {{> findings}}
        </section>
        {{/result}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let update = """
        {{> head}}
        <h1>Update what-if</h1>
        <p>What the server would answer an app that asks <code>/v1/update-check</code> with these fields. Empty fields are left out of the request.</p>
        <form method="get" action="/admin/update" class="grid">
        {{#fields}}
        <div><label for="f-{{name}}">{{label}}</label>
        {{#hasOptions}}<select id="f-{{name}}" name="{{name}}">{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/options}}</select>{{/hasOptions}}
        {{^hasOptions}}<input id="f-{{name}}" name="{{name}}" value="{{value}}" placeholder="{{placeholder}}" autocomplete="off">{{/hasOptions}}
        </div>
        {{/fields}}
        <div><button type="submit">Decide</button></div>
        </form>
        {{#result}}
        <section aria-labelledby="decision" class="result">
        <h2 id="decision">Decision: <span class="badge {{decision}}">{{decision}}</span></h2>
        <dl class="facts">
        {{#policy}}<dt>Policy</dt><dd>{{policy}}</dd>{{/policy}}
        {{#target}}<dt>Target version</dt><dd>{{target}}</dd>{{/target}}
        {{#deadline}}<dt>Deadline (UTC)</dt><dd>{{deadline}}</dd>{{/deadline}}
        {{#localDeadline}}<dt>Deadline on the device</dt><dd>{{localDeadline}}</dd>{{/localDeadline}}
        <dt>Urgency</dt><dd>{{urgency}}</dd>
        {{#message}}<dt>Message</dt><dd>{{message}}</dd>{{/message}}
        <dt>Reasons</dt><dd>{{reasons}}</dd>
        </dl>
        <h3>Every policy, checked</h3>
        <pre class="trace">{{text}}</pre>
        </section>
        {{/result}}
        {{#errors}}<section class="alert" role="alert"><h2>The request is not valid</h2><ul>{{#list}}<li><code>{{.}}</code></li>{{/list}}</ul></section>{{/errors}}
        {{> foot}}
        """

    static let policy = """
        {{> head}}
        <h1>Policy what-if</h1>
        <p>Ask the catalog's profiles ({{profileCount}} loaded) what a device would be allowed, as <code>mdmconf policy</code> answers.</p>
        <form method="get" action="/admin/policy" class="grid">
        <div><label for="type">Question</label>
        <select id="type" name="type">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></div>
        <div><label for="arg">URL, bundle id, SSID or restriction key</label><input id="arg" name="arg" value="{{arg}}" autocomplete="off"></div>
        <div><label for="at">At (RFC 3339; empty: now)</label><input id="at" name="at" value="{{at}}" placeholder="2026-11-30T09:00:00+01:00"></div>
        <div class="check"><input id="hidden" name="hidden" type="checkbox" value="on"{{#hidden}} checked{{/hidden}}><label for="hidden">Hidden Wi-Fi network</label></div>
        <div><button type="submit">Ask</button></div>
        </form>
        {{#result}}
        <section aria-labelledby="answer" class="result">
        <h2 id="answer">Answer: <span class="badge {{badgeClass}}">{{decision}}</span></h2>
        {{#hasReasons}}<div class="scroll"><table><caption>Deciding rules</caption><thead><tr><th scope="col">Effect</th><th scope="col">Rule</th><th scope="col">Payload</th><th scope="col">Where</th><th scope="col">Why</th></tr></thead><tbody>
        {{#reasons}}<tr><td>{{effect}}</td><td><code>{{code}}</code></td><td>{{payload}}</td><td>{{place}}</td><td>{{message}}</td></tr>{{/reasons}}
        </tbody></table></div>{{/hasReasons}}
        <h3>The full answer</h3>
        <pre class="trace">{{text}}</pre>
        </section>
        {{/result}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let fleet = """
        {{> head}}
        <h1>Fleet</h1>
        <form method="get" action="/admin/fleet" class="grid">
        <div><label for="app">App</label><select id="app" name="app"><option value="">any</option>{{#apps}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/apps}}</select></div>
        <div><label for="status">Compliance</label><select id="status" name="status"><option value="">any</option>{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/statuses}}</select></div>
        <div><label for="decision">Update decision</label><select id="decision" name="decision"><option value="">any</option>{{#decisions}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/decisions}}</select></div>
        {{#hasGenerations}}<div><label for="generation">Generation</label><select id="generation" name="generation"><option value="">any</option>{{#generations}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/generations}}</select></div>{{/hasGenerations}}
        <div><button type="submit">Filter</button></div>
        </form>
        {{#summary}}
        <dl class="facts counts">
        <dt>Devices</dt><dd>{{devices}}</dd><dt>Compliant</dt><dd>{{compliant}}</dd><dt>Non-compliant</dt><dd>{{noncompliant}}</dd><dt>Silent</dt><dd>{{silent}}</dd><dt>Never seen</dt><dd>{{never}}</dd>
        </dl>
        <p class="note">Counted {{countedAt}} over every stored device.{{#note}} {{note}}{{/note}}</p>
        {{/summary}}
        <section aria-labelledby="versions">
        <h2 id="versions">Versions per app</h2>
        {{#charts}}<figure>{{{svg}}}<figcaption>{{app}}: devices by reported version</figcaption></figure>{{/charts}}
        {{^charts}}<p>No device has reported an app yet.</p>{{/charts}}
        </section>
        <section aria-labelledby="devices">
        <h2 id="devices">Devices</h2>
        <div class="scroll"><table>
        <thead><tr><th scope="col">Device</th><th scope="col">Compliant</th><th scope="col">Seen</th><th scope="col">Last check-in</th><th scope="col">Platform</th><th scope="col">Channel</th><th scope="col">Why</th></tr></thead>
        <tbody>
        {{#rows}}<tr><td><a href="/admin/fleet/devices/{{device}}">{{device}}</a></td><td><span class="badge {{badgeClass}}">{{compliant}}</span></td><td>{{seen}}</td><td>{{lastCheckIn}}</td><td>{{platform}}</td><td>{{channel}}</td><td>{{#why}}<span class="why">{{.}}</span> {{/why}}</td></tr>
        {{/rows}}
        </tbody>
        </table></div>
        {{^rows}}<p>No device matches.</p>{{/rows}}
        {{#next}}<p><a href="{{next}}" rel="next">Next page</a></p>{{/next}}
        </section>
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let device = """
        {{> head}}
        <h1>Device {{device}}</h1>
        <p><span class="badge {{badgeClass}}">{{compliantText}}</span> seen: {{seen}}{{#lastCheckIn}}, last check-in {{lastCheckIn}}{{/lastCheckIn}}</p>
        {{#hasWhy}}<ul class="why">{{#why}}<li>{{.}}</li>{{/why}}</ul>{{/hasWhy}}
        <dl class="facts">{{#platform}}<dt>Platform</dt><dd>{{platform}} {{osVersion}}</dd>{{/platform}}{{#model}}<dt>Model</dt><dd>{{model}}</dd>{{/model}}{{#groups}}<dt>Groups</dt><dd>{{groups}}</dd>{{/groups}}</dl>
        <h2>Apps</h2>
        <div class="scroll"><table><thead><tr><th scope="col">App</th><th scope="col">Version</th><th scope="col">Decision</th><th scope="col">Config</th><th scope="col">Channel</th><th scope="col">Compliant</th></tr></thead><tbody>
        {{#apps}}<tr><td><a href="/admin/apps/{{app}}">{{app}}</a></td><td>{{version}}</td><td><span class="badge {{decision}}">{{decision}}</span> {{reasons}}</td><td>{{config}}{{#configError}}: {{configError}}{{/configError}}</td><td>{{channel}}</td><td>{{compliant}}</td></tr>{{/apps}}
        </tbody></table></div>
        <h2>Recent check-ins</h2>
        {{#hasCheckIns}}<div class="scroll"><table><thead><tr><th scope="col">Received</th><th scope="col">Replica</th><th scope="col">Reported</th></tr></thead><tbody>
        {{#checkIns}}<tr><td>{{receivedAt}}</td><td>{{replica}}</td><td><code>{{body}}</code></td></tr>{{/checkIns}}
        </tbody></table></div>{{/hasCheckIns}}
        {{^hasCheckIns}}<p>This device has not checked in.</p>{{/hasCheckIns}}
        <p><a href="/admin/fleet">Back to the fleet</a></p>
        {{> foot}}
        """

    static let history = """
        {{> head}}
        <h1>History</h1>
        <p>{{servingNote}}</p>
        {{#hasGenerations}}
        <div class="scroll"><table>
        <thead><tr><th scope="col">Generation</th><th scope="col">Kind</th><th scope="col">Author</th><th scope="col">When</th><th scope="col">Message</th><th scope="col">Files</th><th scope="col">Content</th></tr></thead>
        <tbody>
        {{#generations}}<tr><td><a href="/admin/history/{{number}}">{{number}}</a>{{#served}} <span class="badge ok">served</span>{{/served}}</td><td>{{kind}}{{#source}} of {{source}}{{/source}}</td><td>{{author}}</td><td>{{createdAt}}</td><td>{{message}}</td><td>{{files}}</td><td><code>{{hash}}</code></td></tr>
        {{/generations}}
        </tbody>
        </table></div>
        {{/hasGenerations}}
        {{^hasGenerations}}<p>The store holds no published generation yet: <code>mdmconf publish CATALOG --store …</code> stores one.</p>{{/hasGenerations}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let events = """
        {{> head}}
        <h1>Events</h1>
        {{^hasEndpoints}}<p>No endpoint receives events: add an <code>events.plist</code> to the catalog (or serve with <code>--events FILE</code>).</p>{{/hasEndpoints}}
        {{#hasEndpoints}}
        <h2>Endpoints</h2>
        <div class="scroll"><table>
        <thead><tr><th scope="col">Endpoint</th><th scope="col">URL</th><th scope="col">Types</th><th scope="col">Pending</th><th scope="col">Delivered</th><th scope="col">Failed</th><th scope="col">Disabled</th></tr></thead>
        <tbody>
        {{#endpoints}}<tr><td>{{name}}{{#disabledSince}} <span class="badge error">disabled since {{disabledSince}}</span>{{/disabledSince}}</td><td><code>{{url}}</code></td><td>{{types}}</td><td>{{pending}}</td><td>{{delivered}}</td><td>{{failed}}</td><td>{{disabled}}</td></tr>
        {{/endpoints}}
        </tbody>
        </table></div>
        {{/hasEndpoints}}
        <h2>Failures</h2>
        {{#hasFailures}}<div class="scroll"><table>
        <thead><tr><th scope="col">Event</th><th scope="col">Endpoint</th><th scope="col">Type</th><th scope="col">Subject</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last answer</th></tr></thead>
        <tbody>
        {{#failures}}<tr><td><code>{{event}}</code></td><td>{{endpoint}}</td><td>{{type}}</td><td>{{subject}}</td><td>{{state}}</td><td>{{attempts}}</td><td>{{last}}</td></tr>
        {{/failures}}
        </tbody></table></div>
        <p><code>mdmconf events retry --store …</code> sends failed and disabled deliveries again.</p>{{/hasFailures}}
        {{^hasFailures}}<p>No delivery is failing.</p>{{/hasFailures}}
        <h2>Recent deliveries</h2>
        {{#hasRecent}}<div class="scroll"><table>
        <thead><tr><th scope="col">Created</th><th scope="col">Endpoint</th><th scope="col">Type</th><th scope="col">Subject</th><th scope="col">State</th><th scope="col">Attempts</th></tr></thead>
        <tbody>
        {{#recent}}<tr><td>{{createdAt}}</td><td>{{endpoint}}</td><td>{{type}}</td><td>{{subject}}</td><td>{{state}}</td><td>{{attempts}}</td></tr>
        {{/recent}}
        </tbody></table></div>{{/hasRecent}}
        {{^hasRecent}}<p>No event yet.</p>{{/hasRecent}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let rollout = """
        {{> head}}
        {{^any}}<h1>Rollout</h1>
        <p>No generation was rolled out: <code>mdmconf publish CATALOG --rollout 1,10,50,100 --store …</code> rolls one out in rings.</p>{{/any}}
        {{#any}}
        <h1>Rollout of generation {{generation}}</h1>
        {{#done}}<p class="ok" role="status">{{done}}</p>{{/done}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        <dl class="facts">
        <dt>Phase</dt><dd><span class="badge {{badge}}">{{phase}}</span></dd>
        <dt>Ring</dt><dd>{{ring}}</dd>
        <dt>Other devices</dt><dd>generation {{base}}</dd>
        <dt>Health gate</dt><dd>{{gate}}, once {{minDevices}} moved devices report</dd>
        {{#every}}<dt>Advances</dt><dd>every {{every}} while the gate holds</dd>{{/every}}
        </dl>
        <h2>Rings</h2>
        <ol class="rings">
        {{#rings}}<li{{#current}} aria-current="step"{{/current}}>{{label}}{{#started}} · since {{started}}{{/started}}{{^started}} · not reached{{/started}}</li>
        {{/rings}}
        </ol>
        <h2>Health</h2>
        <dl class="facts">
        <dt>Moved devices</dt><dd>{{moved}}</dd>
        <dt>Reported since their move</dt><dd>{{reporting}}</dd>
        <dt>Configuration errors</dt><dd>{{configErrors}}</dd>
        <dt>Newly non-compliant</dt><dd>{{newlyNoncompliant}}</dd>
        </dl>
        {{#verdict}}<p class="alert" role="alert">The gate trips: {{verdict}}</p>{{/verdict}}
        {{#hasFindings}}<h3>Devices that count against it</h3>
        <div class="scroll"><table>
        <thead><tr><th scope="col">Device</th><th scope="col">Why</th><th scope="col">Reported</th></tr></thead>
        <tbody>
        {{#findings}}<tr><td><a href="/admin/fleet/devices/{{device}}">{{device}}</a></td><td>{{kind}}</td><td>{{reason}}</td></tr>
        {{/findings}}
        </tbody></table></div>{{/hasFindings}}
        {{#hasActions}}<h2>Steps you can take</h2>
        <div class="actions">
        {{#actions}}<form method="post" action="/admin/rollout/{{generation}}" class="inline">
        <input type="hidden" name="csrf" value="{{chrome.csrf}}">
        <input type="hidden" name="action" value="{{name}}">
        <button type="submit"{{#danger}} class="danger"{{/danger}}>{{label}}</button>
        </form>
        {{/actions}}
        </div>{{/hasActions}}
        <h2>Steps</h2>
        <div class="scroll"><table>
        <thead><tr><th scope="col">Step</th><th scope="col">Action</th><th scope="col">Phase</th><th scope="col">Ring</th><th scope="col">When</th><th scope="col">Who</th><th scope="col">Why</th></tr></thead>
        <tbody>
        {{#steps}}<tr><td>{{number}}</td><td>{{action}}</td><td>{{phase}}</td><td>{{ring}}</td><td>{{at}}</td><td>{{author}}</td><td>{{reason}}</td></tr>
        {{/steps}}
        </tbody></table></div>
        {{/any}}
        {{> foot}}
        """

    static let generation = """
        {{> head}}
        <h1>Generation {{number}}</h1>
        <dl class="facts"><dt>Kind</dt><dd>{{kind}}{{#source}} of generation {{source}}{{/source}}</dd><dt>Author</dt><dd>{{author}}</dd><dt>When</dt><dd>{{createdAt}}</dd><dt>Message</dt><dd>{{message}}</dd><dt>Content hash</dt><dd><code>{{hash}}</code></dd></dl>
        <h2>Changes against {{against}}</h2>
        {{#hasChanges}}<div class="scroll"><table><thead><tr><th scope="col">File</th><th scope="col">Change</th><th scope="col">Key path</th><th scope="col">Before</th><th scope="col">After</th></tr></thead><tbody>
        {{#changes}}<tr><td><code>{{file}}</code></td><td>{{kind}}</td><td><code>{{path}}</code></td><td>{{old}}</td><td>{{new}}</td></tr>{{/changes}}
        </tbody></table></div>{{/hasChanges}}
        {{^hasChanges}}<p>No change.</p>{{/hasChanges}}
        <details><summary>As <code>mdmconf diff</code> prints it</summary><pre>{{text}}</pre></details>
        {{#canRollBack}}<p><a class="button" href="/admin/history/{{number}}/rollback">Roll back to generation {{number}}…</a></p>{{/canRollBack}}
        <p><a href="/admin/history">All generations</a></p>
        {{> foot}}
        """

    static let rollback = """
        {{> head}}
        <h1>Roll back to generation {{number}}?</h1>
        {{^done}}
        <p>Generation {{number}} ({{message}}, by {{author}}, {{createdAt}}) is published again as generation {{next}}: history is kept, nothing is rewritten. {{effect}}</p>
        <h2>What changes against what is served now</h2>
        <pre>{{text}}</pre>
        <form method="post" action="/admin/history/{{number}}/rollback" class="stack">
        <input type="hidden" name="csrf" value="{{chrome.csrf}}">
        <label for="message">Why</label>
        <input id="message" name="message" value="rollback to generation {{number}}">
        <button type="submit" class="danger">Roll back to generation {{number}}</button>
        </form>
        <p><a href="/admin/history/{{number}}">Cancel</a></p>
        {{/done}}
        {{#done}}<p class="ok" role="status">{{done}}</p><p><a href="/admin/history">History</a> · <a href="/admin">Overview</a></p>{{/done}}
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        {{> foot}}
        """

    static let login = """
        {{> head}}
        <h1>Log in</h1>
        <p>Paste an admin token of this catalog's tokens.plist. Device tokens cannot log in.</p>
        {{#problem}}<p class="alert" role="alert">{{problem}}</p>{{/problem}}
        <form method="post" action="/admin/login" class="stack">
        <input type="hidden" name="csrf" value="{{loginCSRF}}">
        <input type="hidden" name="next" value="{{next}}">
        <label for="token">Admin token</label>
        <input id="token" name="token" type="password" autocomplete="current-password" required>
        <button type="submit">Log in</button>
        </form>
        {{> foot}}
        """

    static let problem = """
        {{> head}}
        <h1>{{heading}}</h1>
        <p>{{message}}</p>
        <p><a href="/admin">Overview</a></p>
        {{> foot}}
        """
}
