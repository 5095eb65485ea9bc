import CivilTime
import MDMDiagnostics

/// Daily compliance roll-ups (`GET /v1/fleet/trend`): per app and day, devices by decision, by config status and
/// by compliance, so that "are we getting better since the deadline?" has an answer. The server writes today's
/// row set from the live summary (replacing what the day had), so a past day keeps the last counts taken on it.
public enum FleetTrend {
    /// `YYYY-MM-DD` (UTC) of `instant`.
    public static func day(of instant: Instant) -> String { String(instant.description.prefix(10)) }

    /// The roll-up rows of `summary` for `day`.
    public static func rows(of summary: FleetSummary, day: String) -> [RollupRow] {
        var rows: [RollupRow] = []
        for (app, counts) in summary.apps {
            for (value, devices) in counts.decisions {
                rows.append(RollupRow(day: day, app: app, dimension: "decision", value: value, devices: devices))
            }
            for (value, devices) in counts.config {
                rows.append(RollupRow(day: day, app: app, dimension: "config", value: value, devices: devices))
            }
            rows.append(RollupRow(day: day, app: app, dimension: "compliant", value: "true", devices: counts.compliant))
            rows.append(
                RollupRow(
                    day: day, app: app, dimension: "compliant", value: "false",
                    devices: counts.devices - counts.compliant))
        }
        return rows.sorted { ($0.app, $0.dimension, $0.value) < ($1.app, $1.dimension, $1.value) }
    }

    /// `{"app", "days": [{"day", "devices", "compliant", "decisions": {...}, "config": {...}}]}`, one entry per
    /// app, days in order.
    public static func json(_ rows: [RollupRow], days: Int, today: String) -> JSONValue {
        var byApp: [String: [String: [RollupRow]]] = [:]
        for row in rows { byApp[row.app, default: [:]][row.day, default: []].append(row) }
        let apps: [JSONValue] = byApp.keys.sorted().map { app in
            let dayRows = byApp[app] ?? [:]
            let list: [JSONValue] = dayRows.keys.sorted().map { day in
                let entries = dayRows[day] ?? []
                func counts(_ dimension: String) -> JSONValue {
                    .object(
                        entries.filter { $0.dimension == dimension }.sorted { $0.value < $1.value }.map {
                            ($0.value, .integer($0.devices))
                        })
                }
                let compliant = entries.first { $0.dimension == "compliant" && $0.value == "true" }?.devices ?? 0
                let non = entries.first { $0.dimension == "compliant" && $0.value == "false" }?.devices ?? 0
                return .object([
                    ("day", .string(day)), ("devices", .integer(compliant + non)),
                    ("compliant", .integer(compliant)), ("decisions", counts("decision")),
                    ("config", counts("config")),
                ])
            }
            return .object([("app", .string(app)), ("days", .array(list))])
        }
        return .object([("today", .string(today)), ("days", .integer(days)), ("apps", .array(apps))])
    }
}
