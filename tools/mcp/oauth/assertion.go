package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// assertionType is the client_assertion_type of a JWT that authenticates
// the client (RFC 7523, private_key_jwt).
const assertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// assertionLife is how long a client assertion may be used.
const assertionLife = 5 * time.Minute

// ParsePrivateKey reads a PEM private key: PKCS #8, or an RSA (PKCS #1) or
// EC (SEC 1) key.
func ParsePrivateKey(data []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("not a PEM key")
	}
	if strings.Contains(block.Type, "ENCRYPTED") || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, errors.New("the key is encrypted: give it unencrypted, readable by you only")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, err
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("a %T cannot sign", key)
	}
	return signer, nil
}

// signingMethod is the JWS algorithm alg for key, or the key's own when
// alg is empty; an algorithm the key cannot sign with is an error.
func signingMethod(key crypto.Signer, alg string) (jwt.SigningMethod, error) {
	var own string
	var fits []string
	switch k := key.(type) {
	case *rsa.PrivateKey:
		own, fits = "RS256", []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
	case *ecdsa.PrivateKey:
		switch k.Curve {
		case elliptic.P256():
			own = "ES256"
		case elliptic.P384():
			own = "ES384"
		case elliptic.P521():
			own = "ES512"
		default:
			return nil, errors.New("an EC key on a curve JWS has no algorithm for")
		}
		fits = []string{own}
	case ed25519.PrivateKey:
		own, fits = "EdDSA", []string{"EdDSA"}
	default:
		return nil, fmt.Errorf("a %T key cannot sign a client assertion", key)
	}
	if alg == "" {
		alg = own
	}
	if !slices.Contains(fits, alg) {
		return nil, fmt.Errorf("signing_algorithm %s does not go with the key, which signs with %s", alg, strings.Join(fits, ", "))
	}
	return jwt.GetSigningMethod(alg), nil
}

// clientAssertion is the JWT clientID authenticates with at the
// authorization server whose issuer is audience (RFC 7523, section 3).
func clientAssertion(key crypto.Signer, alg, clientID, audience string, now time.Time) (string, error) {
	method, err := signingMethod(key, alg)
	if err != nil {
		return "", err
	}
	claims := jwt.RegisteredClaims{
		Issuer: clientID, Subject: clientID, Audience: jwt.ClaimStrings{audience},
		IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(assertionLife)), ID: rand.Text(),
	}
	return jwt.NewWithClaims(method, claims).SignedString(key)
}
