package tlsconf

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/asn1"
	"errors"
	"hash"
)

// decryptPKCS8 decrypts a PKCS#8 EncryptedPrivateKeyInfo (PEM "ENCRYPTED
// PRIVATE KEY") with PBES2 (RFC 8018 section 6.2): a PBKDF2 key, with
// HMAC-SHA-1 or SHA-2 as its PRF, and AES-CBC or 3DES-CBC, which is what
// `openssl pkcs8 -topk8 -v2 <cipher>` and OpenSSL 3's `genpkey -aes256`
// write and OpenSSL (so Redis) reads. Go's x509 cannot read them. The
// result is the PKCS#8 PrivateKeyInfo. The older PBES1 and PKCS#12
// schemes (`-v1`), which OpenSSL still reads, are not built: such a key
// fails to load with the reason in the log line.
func decryptPKCS8(der []byte, pass string) ([]byte, error) {
	var info struct {
		Algo struct {
			OID    asn1.ObjectIdentifier
			Params asn1.RawValue
		}
		Data []byte
	}
	if rest, err := asn1.Unmarshal(der, &info); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed PKCS#8 encrypted key")
	}
	if !info.Algo.OID.Equal(oidPBES2) {
		return nil, errors.New("unsupported PKCS#8 encryption (only PBES2 is)")
	}
	var params struct {
		KDF struct {
			OID    asn1.ObjectIdentifier
			Params asn1.RawValue
		}
		Cipher struct {
			OID asn1.ObjectIdentifier
			IV  []byte
		}
	}
	if rest, err := asn1.Unmarshal(info.Algo.Params.FullBytes, &params); err != nil || len(rest) > 0 {
		return nil, errors.New("malformed PBES2 parameters")
	}
	if !params.KDF.OID.Equal(oidPBKDF2) {
		return nil, errors.New("unsupported PBES2 key derivation (only PBKDF2 is)")
	}
	var kdf struct {
		Salt      []byte
		Iter      int
		KeyLength int `asn1:"optional"`
		PRF       struct {
			OID    asn1.ObjectIdentifier
			Params asn1.RawValue `asn1:"optional"`
		} `asn1:"optional"`
	}
	if rest, err := asn1.Unmarshal(params.KDF.Params.FullBytes, &kdf); err != nil || len(rest) > 0 || kdf.Iter <= 0 {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	var prf func() hash.Hash
	switch oid := kdf.PRF.OID; {
	case len(oid) == 0 || oid.Equal(oidHMACSHA1): // the default
		prf = sha1.New
	case oid.Equal(oidHMACSHA224):
		prf = sha256.New224
	case oid.Equal(oidHMACSHA256):
		prf = sha256.New
	case oid.Equal(oidHMACSHA384):
		prf = sha512.New384
	case oid.Equal(oidHMACSHA512):
		prf = sha512.New
	default:
		return nil, errors.New("unsupported PBKDF2 PRF")
	}
	var keyLen int
	var newBlock func([]byte) (cipher.Block, error)
	switch oid := params.Cipher.OID; {
	case oid.Equal(oidAES128CBC):
		keyLen, newBlock = 16, aes.NewCipher
	case oid.Equal(oidAES192CBC):
		keyLen, newBlock = 24, aes.NewCipher
	case oid.Equal(oidAES256CBC):
		keyLen, newBlock = 32, aes.NewCipher
	case oid.Equal(oidDESEDE3CBC):
		keyLen, newBlock = 24, des.NewTripleDESCipher
	default:
		return nil, errors.New("unsupported PBES2 cipher")
	}
	if kdf.KeyLength != 0 && kdf.KeyLength != keyLen {
		return nil, errors.New("malformed PBKDF2 parameters")
	}
	key, err := pbkdf2.Key(prf, pass, kdf.Salt, kdf.Iter, keyLen)
	if err != nil {
		return nil, err
	}
	block, err := newBlock(key)
	if err != nil {
		return nil, err
	}
	bs := block.BlockSize()
	if len(params.Cipher.IV) != bs || len(info.Data) == 0 || len(info.Data)%bs != 0 {
		return nil, errors.New("bad decrypt")
	}
	plain := make([]byte, len(info.Data))
	cipher.NewCBCDecrypter(block, params.Cipher.IV).CryptBlocks(plain, info.Data)
	// PKCS#7 padding: a wrong password leaves garbage here (or, rarely,
	// valid-looking padding: then the key does not parse).
	pad := int(plain[len(plain)-1])
	if pad == 0 || pad > bs {
		return nil, errors.New("bad decrypt")
	}
	for _, b := range plain[len(plain)-pad:] {
		if int(b) != pad {
			return nil, errors.New("bad decrypt")
		}
	}
	plain = plain[:len(plain)-pad]
	var probe asn1.RawValue
	if rest, err := asn1.Unmarshal(plain, &probe); err != nil || len(rest) > 0 || probe.Tag != asn1.TagSequence {
		return nil, errors.New("bad decrypt")
	}
	return plain, nil
}

var (
	oidPBES2      = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 13}
	oidPBKDF2     = asn1.ObjectIdentifier{1, 2, 840, 113549, 1, 5, 12}
	oidHMACSHA1   = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 7}
	oidHMACSHA224 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 8}
	oidHMACSHA256 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 9}
	oidHMACSHA384 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 10}
	oidHMACSHA512 = asn1.ObjectIdentifier{1, 2, 840, 113549, 2, 11}
	oidAES128CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 2}
	oidAES192CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 22}
	oidAES256CBC  = asn1.ObjectIdentifier{2, 16, 840, 1, 101, 3, 4, 1, 42}
	oidDESEDE3CBC = asn1.ObjectIdentifier{1, 2, 840, 113549, 3, 7}
)
