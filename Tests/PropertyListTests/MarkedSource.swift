import MDMDiagnostics
import PropertyList

/// An inline fixture with emoji markers (1️⃣ … 9️⃣) at the positions a test expects; the markers are
/// removed from the text and their 1-based line and byte column recorded.
struct MarkedSource {
    static let markers: [Character] = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"]

    let text: String
    let positions: [Character: (line: Int, column: Int)]

    init(_ marked: String) {
        var text = ""
        var positions: [Character: (line: Int, column: Int)] = [:]
        var line = 1
        var column = 1
        for character in marked {
            if Self.markers.contains(character) {
                positions[character] = (line, column)
                continue
            }
            text.append(character)
            if character == "\n" {
                line += 1
                column = 1
            } else {
                column += character.utf8.count
            }
        }
        self.text = text
        self.positions = positions
    }

    var bytes: [UInt8] { Array(text.utf8) }

    subscript(marker: Character) -> (line: Int, column: Int)? { positions[marker] }

    func read(_ file: String = "test.plist", options: PlistReaderOptions = PlistReaderOptions()) -> PlistDocument {
        PropertyListReader(options: options).read(bytes, file: file)
    }
}
