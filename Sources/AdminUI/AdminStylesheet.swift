/// The one stylesheet of the admin page, served at `/admin/style.css`: system fonts only (the page works
/// offline), readable from phone width up, colours with at least 4.5:1 contrast, a visible keyboard focus.
public enum AdminStylesheet {
    /// The stylesheet's text.
    public static let css = """
        :root { --ink: #1b1f24; --muted: #4d5661; --line: #d0d7de; --paper: #ffffff; --wash: #f6f8fa;
          --accent: #0b5cad; --ok: #116329; --ok-bg: #dafbe1; --warn: #7a4a00; --warn-bg: #fff1c2;
          --bad: #a40e26; --bad-bg: #ffebe9; --info-bg: #ddf4ff; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink);
          background: var(--paper); }
        a { color: var(--accent); }
        a:focus, button:focus, input:focus, select:focus, textarea:focus, summary:focus {
          outline: 3px solid #f0a30a; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: var(--paper); padding: 4px 8px; z-index: 2; }
        header.top { display: flex; flex-wrap: wrap; gap: 8px 18px; align-items: center; padding: 10px 20px;
          background: #24292f; color: #fff; }
        header.top a { color: #fff; text-decoration: none; }
        header.top a[aria-current="page"] { text-decoration: underline; text-underline-offset: 4px; }
        header.top nav { display: flex; flex-wrap: wrap; gap: 6px 16px; }
        .brand { font-weight: 700; }
        form.logout { margin-left: auto; }
        main { max-width: 1180px; margin: 0 auto; padding: 16px 20px 40px; }
        footer { color: var(--muted); font-size: 13px; padding: 0 20px 20px; max-width: 1180px; margin: 0 auto; }
        h1 { font-size: 26px; margin: 8px 0 12px; } h2 { font-size: 20px; margin-top: 28px; } h3 { font-size: 16px; }
        .banner { margin: 0; padding: 10px 20px; background: var(--warn-bg); color: var(--warn);
          border-bottom: 1px solid #d4a72c; }
        .alert { background: var(--bad-bg); color: var(--bad); border: 1px solid #ffb3b8; padding: 10px 14px;
          border-radius: 6px; }
        section.alert h2 { margin-top: 4px; }
        .ok { background: var(--ok-bg); color: var(--ok); padding: 10px 14px; border-radius: 6px; }
        .note { color: var(--muted); font-size: 13px; }
        table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; }
        caption { text-align: left; font-weight: 600; padding: 4px 0; }
        th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
        th { background: var(--wash); font-weight: 600; }
        .scroll { overflow-x: auto; }
        code, pre { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        pre { background: var(--wash); border: 1px solid var(--line); padding: 10px 12px; overflow-x: auto;
          border-radius: 6px; white-space: pre; }
        dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 8px 0 16px; }
        dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
        dl.counts { grid-template-columns: repeat(5, max-content 1fr); }
        .badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 13px; font-weight: 600;
          background: var(--info-bg); color: #0a3069; }
        .badge.ok, .badge.valid, .badge.yes, .badge.allow, .badge.current { background: var(--ok-bg); color: var(--ok); }
        .badge.recommended, .badge.warning, .badge.stale { background: var(--warn-bg); color: var(--warn); }
        .badge.required, .badge.unsupported, .badge.error, .badge.invalid, .badge.no, .badge.deny
          { background: var(--bad-bg); color: var(--bad); }
        tr.error td.where { border-left: 4px solid var(--bad); } tr.warning td.where { border-left: 4px solid #d4a72c; }
        .why { display: inline-block; margin: 0 4px 2px 0; }
        ul.why { padding-left: 20px; }
        form.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(210px, 1fr)); gap: 10px 16px;
          align-items: end; background: var(--wash); padding: 12px; border-radius: 6px; }
        form.grid label, form.stack label { display: block; font-weight: 600; font-size: 13px; margin-bottom: 2px; }
        form.stack { display: grid; gap: 6px; max-width: 760px; }
        form.inline { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
        .actions { display: flex; flex-wrap: wrap; gap: 8px; }
        ol.rings li[aria-current] { font-weight: 600; }
        .check { display: flex; gap: 6px; align-items: center; } .check label { margin: 0; }
        input, select, textarea { font: inherit; padding: 5px 8px; border: 1px solid #8c959f; border-radius: 6px;
          width: 100%; background: #fff; color: var(--ink); }
        input[type="checkbox"] { width: auto; }
        textarea { font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
        button, a.button { font: inherit; font-weight: 600; padding: 6px 14px; border-radius: 6px; border: 1px solid #1f6feb;
          background: var(--accent); color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
        header.top button { background: transparent; border-color: #8c959f; }
        button.danger { background: var(--bad); border-color: var(--bad); }
        figure { margin: 8px 0 18px; } figcaption { color: var(--muted); font-size: 13px; }
        svg.chart { max-width: 100%; height: auto; }
        svg.chart text { font: 12px system-ui, sans-serif; fill: var(--ink); }
        svg.chart .bar { fill: var(--accent); } svg.chart .bar.compliant { fill: #1a7f37; }
        svg.chart .bar.noncompliant { fill: #cf222e; } svg.chart .bar.silent { fill: #9a6700; }
        svg.chart .bar.never { fill: #6e7781; }
        details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
        @media (max-width: 640px) {
          main { padding: 12px; } dl.counts { grid-template-columns: max-content 1fr; }
          th, td { padding: 5px 4px; } h1 { font-size: 22px; }
        }
        """
}
