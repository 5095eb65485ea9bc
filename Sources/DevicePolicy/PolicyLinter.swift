struct PolicyLinter { let payloads: [Payload]; func lints(adding: [PolicyFinding]) -> [PolicyFinding] { adding } }
