import Foundation
@testable import RewindSupport
import RewindTestSupport
import Testing

@Suite("A certificate's notAfter, read from its DER")
struct CertificateValidityTests {
    @Test("UTCTime (1950–2049) and GeneralizedTime; anything else is nil")
    func times() {
        #expect(CertificateValidity.date("200201000000Z", generalized: false) == Date(timeIntervalSince1970: 1_580_515_200))
        #expect(CertificateValidity.date("491231235959Z", generalized: false) == Date(timeIntervalSince1970: 2_524_607_999))
        #expect(CertificateValidity.date("500101000000Z", generalized: false) == Date(timeIntervalSince1970: -631_152_000))
        #expect(CertificateValidity.date("20500101000000Z", generalized: true) == Date(timeIntervalSince1970: 2_524_608_000))
        for bad in ["2002010000Z", "200201000000", "20020100000xZ", ""] {
            #expect(CertificateValidity.date(bad, generalized: false) == nil, "\(bad)")
        }
    }

    @Test("openssl's certificates: the expired one ends 2020-02-01, as openssl says; truncated or other bytes give nil")
    func certificates() throws {
        let certificates = try TestCertificates()
        let der = try #require(TrustedCAFile.load(certificates.expiredCertificate).get().derCertificates.first)
        #expect(CertificateValidity.notAfter(der: der) == Date(timeIntervalSince1970: 1_580_515_200))
        let valid = try #require(TrustedCAFile.load(certificates.certificate).get().derCertificates.first)
        let end = try #require(CertificateValidity.notAfter(der: valid))
        #expect(end.timeIntervalSinceNow > 29 * 86_400 && end.timeIntervalSinceNow < 31 * 86_400)
        for cut in [0, 1, 10, der.count / 3, der.count / 2] {
            #expect(CertificateValidity.notAfter(der: Array(der.prefix(cut))) == nil)
        }
        #expect(CertificateValidity.notAfter(der: Array("not a certificate".utf8)) == nil)
    }
}
