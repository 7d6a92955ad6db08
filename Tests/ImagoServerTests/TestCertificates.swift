#if os(Linux)
/// A test certificate authority and the certificate of a made-up origin it signed, for the
/// https origin of the loader tests (``TLSOrigin``). EC P-256, valid 2000-01-01 to 2100-01-01
/// (so neither a wrong clock nor time makes them fail), for `origin.test` and `*.origin.test`
/// (`.test` is reserved, RFC 6761: no real host has these names). Test-only: the key is public.
///
/// Made with OpenSSL 3.0 (`openssl ca` sets the start date that `req -x509` cannot), in an empty
/// directory:
///
/// ```sh
/// mkdir db && touch db/index.txt && echo 01 > db/serial
/// cat > ca.cnf <<'CNF'
/// [ca]
/// default_ca = test_ca
/// [test_ca]
/// database = db/index.txt
/// serial = db/serial
/// new_certs_dir = db
/// default_md = sha256
/// policy = any
/// unique_subject = no
/// copy_extensions = none
/// [any]
/// commonName = supplied
/// [ca_ext]
/// basicConstraints = critical,CA:TRUE
/// keyUsage = critical,keyCertSign,cRLSign
/// subjectKeyIdentifier = hash
/// [origin_ext]
/// basicConstraints = critical,CA:FALSE
/// keyUsage = critical,digitalSignature
/// extendedKeyUsage = serverAuth
/// subjectAltName = DNS:origin.test,DNS:*.origin.test
/// authorityKeyIdentifier = keyid
/// CNF
/// dates="-startdate 20000101000000Z -enddate 21000101000000Z"
/// openssl ecparam -name prime256v1 -genkey -noout -out ca.key
/// openssl req -new -key ca.key -subj "/CN=Imago test CA" -out ca.csr
/// openssl ca -batch -config ca.cnf -selfsign -keyfile ca.key -in ca.csr -extensions ca_ext $dates -notext -out ca.pem
/// openssl ecparam -name prime256v1 -genkey -noout -out origin.key
/// openssl req -new -key origin.key -subj "/CN=origin.test" -out origin.csr
/// openssl ca -batch -config ca.cnf -cert ca.pem -keyfile ca.key -in origin.csr -extensions origin_ext $dates -notext -out origin.pem
/// openssl pkcs8 -topk8 -nocrypt -in origin.key -out origin.pkcs8.key
/// ```
///
/// then `ca.pem`, `origin.pem` and `origin.pkcs8.key` pasted below (the CA's key is not kept).
enum TestCertificates {
    /// The certificate authority the loader under test trusts.
    static let authority = """
        -----BEGIN CERTIFICATE-----
        MIIBYzCCAQmgAwIBAgIBATAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1JbWFnbyB0
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMDAwMTAxMDAwMDAwWjAYMRYwFAYD
        VQQDDA1JbWFnbyB0ZXN0IENBMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEvyve
        yB8OReZYD9A5cOh8qQQm4cG68KbXtH9Gf8B8Ouy3V5ifXmgi1Jod3ZYs9+1e+0sN
        ft4TUlR94WLGPI5IxaNCMEAwDwYDVR0TAQH/BAUwAwEB/zAOBgNVHQ8BAf8EBAMC
        AQYwHQYDVR0OBBYEFM2d6PMG6o4jTU14Ixqw/GKGbC9OMAoGCCqGSM49BAMCA0gA
        MEUCIBEUCQy46w7krN1PD++534W9mEgj1QwqzvYj8dTLqERtAiEApgHhYMsvpS8a
        LYNKacX1aLP0C+Ut12x64Hysxj+CHVk=
        -----END CERTIFICATE-----
        """

    /// The origin's certificate: `origin.test`, `*.origin.test`, signed by ``authority``.
    static let origin = """
        -----BEGIN CERTIFICATE-----
        MIIBvDCCAWOgAwIBAgIBAjAKBggqhkjOPQQDAjAYMRYwFAYDVQQDDA1JbWFnbyB0
        ZXN0IENBMCAXDTAwMDEwMTAwMDAwMFoYDzIxMDAwMTAxMDAwMDAwWjAWMRQwEgYD
        VQQDDAtvcmlnaW4udGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABDvUe3bI
        IqYW3sh9A/9QQp5md6u1vxHpx6Wg7/Rn/b5wSlJeWfAv3x+JxxewIF02P8+1OceM
        ZSybuhxUm850LyOjgZ0wgZowDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMCB4Aw
        EwYDVR0lBAwwCgYIKwYBBQUHAwEwJQYDVR0RBB4wHIILb3JpZ2luLnRlc3SCDSou
        b3JpZ2luLnRlc3QwHwYDVR0jBBgwFoAUzZ3o8wbqjiNNTXgjGrD8YoZsL04wHQYD
        VR0OBBYEFP/LBSMFq563BIkX+hxmUF6OEgXuMAoGCCqGSM49BAMCA0cAMEQCIAnU
        tq92chKfnWmPl5yfE5s4lczVWxoTu9tzSVR1w74JAiB6ZkVwAfitTeIhzkfKrhB8
        fF0NbXCqTg6MFGggXek3dQ==
        -----END CERTIFICATE-----
        """

    /// The origin's private key (PKCS #8).
    static let originKey = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTKd6t1Ub3jHFkHpR
        YYPGKaorte7y+KFhaYEtSV8U+n2hRANCAAQ71Ht2yCKmFt7IfQP/UEKeZnertb8R
        6celoO/0Z/2+cEpSXlnwL98ficcXsCBdNj/PtTnHjGUsm7ocVJvOdC8j
        -----END PRIVATE KEY-----
        """
}
#endif
