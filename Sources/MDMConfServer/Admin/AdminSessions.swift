import CivilTime
import Foundation
import NIOConcurrencyHelpers

/// Admin sessions (*The admin page*): a session id in an `HttpOnly`, `SameSite=Strict` cookie, its CSRF token
/// for every changing form, an absolute expiry. In memory: a restart logs everyone out.
final class AdminSessions: Sendable {
    struct Session: Sendable {
        let csrf: String
        let expires: Instant
    }

    let lifetime: Double
    let clock: @Sendable () -> Instant
    private let sessions = NIOLockedValueBox<[String: Session]>([:])
    /// More live sessions than this and the oldest are dropped (a flood of logins cannot grow memory).
    static let limit = 10_000

    init(lifetime: Double, clock: @escaping @Sendable () -> Instant = { .now }) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// A new session: its id and CSRF token.
    func open() -> (id: String, session: Session) {
        let now = clock()
        let id = Self.randomHex()
        let session = Session(csrf: Self.randomHex(), expires: now.adding(seconds: Int64(lifetime)))
        sessions.withLockedValue { all in
            if all.count >= Self.limit {
                all = all.filter { $0.value.expires > now }
                while all.count >= Self.limit, let oldest = all.min(by: { $0.value.expires < $1.value.expires }) {
                    all[oldest.key] = nil
                }
            }
            all[id] = session
        }
        return (id, session)
    }

    /// The live session of `id`; an expired one is removed.
    func session(_ id: String?) -> Session? {
        guard let id else { return nil }
        let now = clock()
        return sessions.withLockedValue { all in
            guard let session = all[id] else { return nil }
            guard session.expires > now else {
                all[id] = nil
                return nil
            }
            return session
        }
    }

    func close(_ id: String?) {
        guard let id else { return }
        sessions.withLockedValue { $0[id] = nil }
    }

    /// 32 random bytes as hex (256 bits: not guessable).
    static func randomHex() -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        var out = ""
        for _ in 0..<32 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return out
    }

    /// Compares two tokens in constant time for equal lengths.
    static func sameToken(_ lhs: String?, _ rhs: String) -> Bool {
        guard let lhs else { return false }
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}
