import AdminUI
import Testing

/// The admin forms' bodies: URL-encoded and multipart, well formed and not.
struct FormEncodingTests {
    struct URLCase: Sendable, CustomTestStringConvertible {
        var body: String
        var fields: [String: String]?
        var testDescription: String { body.isEmpty ? "(empty)" : body }
    }

    static let urlCases: [URLCase] = [
        URLCase(body: "", fields: [:]),
        URLCase(body: "a=1&b=x+y%21", fields: ["a": "1", "b": "x y!"]),
        URLCase(body: "a=1&a=2", fields: ["a": "2"]),
        URLCase(body: "flag&x=", fields: ["flag": "", "x": ""]),
        URLCase(body: "t=%E2%82%AC", fields: ["t": "€"]),
        URLCase(body: "t=%zz", fields: nil),
        URLCase(body: "t=%4", fields: nil),
        URLCase(body: "t=%", fields: nil),
        URLCase(body: "t=%FF", fields: nil),
    ]

    @Test(arguments: urlCases)
    func urlEncoded(_ testCase: URLCase) {
        #expect(FormEncoding.urlEncoded(Array(testCase.body.utf8)) == testCase.fields)
    }

    @Test func escapeRoundTrips() {
        for text in ["/admin/fleet?x=1", "a b+c&d", "ação", "<script>"] {
            let escaped = FormEncoding.escape(text)
            #expect(!escaped.contains(" ") && !escaped.contains("&") && !escaped.contains("<"))
            #expect(FormEncoding.urlEncoded(Array("v=\(escaped)".utf8))?["v"] == text)
        }
    }

    struct MultipartCase: Sendable, CustomTestStringConvertible {
        var name: String
        var body: String
        var parts: [String]?
        var testDescription: String { name }
    }

    static let multipartCases: [MultipartCase] = [
        MultipartCase(
            name: "two fields and a file",
            body:
                "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.plist\"\r\nContent-Type: text/xml\r\n\r\n<plist/>\r\n--B--\r\n",
            parts: ["a=1", "f[x.plist]=<plist/>"]),
        MultipartCase(
            name: "a value holding CRLF and dashes",
            body: "--B\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nline\r\n--not-B\r\n--B--",
            parts: ["t=line\r\n--not-B"]),
        MultipartCase(
            name: "no closing delimiter", body: "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1", parts: nil
        ),
        MultipartCase(name: "no headers end", body: "--B\r\nContent-Disposition: form-data; name=\"a\"", parts: nil),
        MultipartCase(
            name: "a part without a name", body: "--B\r\nContent-Type: text/plain\r\n\r\n1\r\n--B--", parts: nil),
        MultipartCase(name: "not multipart at all", body: "a=1", parts: nil),
        MultipartCase(name: "only the end", body: "--B--\r\n", parts: []),
    ]

    @Test(arguments: multipartCases)
    func multipart(_ testCase: MultipartCase) {
        let parts = FormEncoding.multipart(Array(testCase.body.utf8), boundary: "B")
        #expect(
            parts?.map { "\($0.name)\($0.filename.map { "[\($0)]" } ?? "")=\($0.text)" } == testCase.parts)
    }

    @Test func boundaries() {
        #expect(FormEncoding.boundary(contentType: "multipart/form-data; boundary=----abc") == "----abc")
        #expect(FormEncoding.boundary(contentType: "Multipart/Form-Data; charset=utf-8; boundary=\"q r\"") == "q r")
        #expect(FormEncoding.boundary(contentType: "multipart/form-data") == nil)
        #expect(FormEncoding.boundary(contentType: "application/x-www-form-urlencoded") == nil)
        #expect(
            FormEncoding.boundary(contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71))
                == nil)
    }
}
