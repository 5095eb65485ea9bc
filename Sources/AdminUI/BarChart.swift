/// A horizontal bar chart as inline SVG, made on the server (*The admin page*: no scripts, fonts or CDNs). Labels are
/// escaped here because the template inserts the markup as is.
struct BarChart {
    struct Bar {
        var label: String
        var value: Int
        /// A CSS class of the stylesheet (`compliant`, `noncompliant`, …), or empty for the accent colour.
        var style = ""
    }

    var title: String
    var bars: [Bar]

    static let rowHeight = 24
    static let labelWidth = 170
    static let width = 560

    var svg: String {
        let most = max(1, bars.map(\.value).max() ?? 1)
        let plot = Self.width - Self.labelWidth - 60
        let height = max(1, bars.count) * Self.rowHeight + 8
        var out =
            #"<svg class="chart" role="img" aria-label="\#(Self.escape(title))" viewBox="0 0 \#(Self.width) \#(height)" width="\#(Self.width)" height="\#(height)" xmlns="http://www.w3.org/2000/svg">"#
        out += "<title>\(Self.escape(title))</title>"
        for (index, bar) in bars.enumerated() {
            let y = index * Self.rowHeight + 4
            let length = bar.value == 0 ? 0 : max(2, bar.value * plot / most)
            let label = bar.label.count > 24 ? String(bar.label.prefix(23)) + "…" : bar.label
            out += #"<text x="\#(Self.labelWidth - 8)" y="\#(y + 15)" text-anchor="end">\#(Self.escape(label))</text>"#
            out +=
                #"<rect class="bar \#(bar.style)" x="\#(Self.labelWidth)" y="\#(y + 3)" width="\#(length)" height="16" rx="2"></rect>"#
            out += #"<text x="\#(Self.labelWidth + length + 6)" y="\#(y + 15)">\#(bar.value)</text>"#
        }
        return out + "</svg>"
    }

    /// Text as HTML (and XML) character data or attribute value.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
