/// The OpenAPI 3.1 document of every endpoint, served at `/openapi.json`.
///
/// The document is the file `OpenAPI/openapi.json` beside this one, embedded in the binary when it is built, so a
/// server needs no resource bundle beside it. `ContractTests` checks every answer of the endpoint tables against
/// it and validates it with OpenAPIKit, and schemathesis (`Tests/Contract`) fuzzes a live server with it. Change
/// it with the endpoint it describes.
enum OpenAPIDocument {
    /// The document's bytes, exactly as served.
    static var bytes: [UInt8] { PackageResources.openapi_json }
}
