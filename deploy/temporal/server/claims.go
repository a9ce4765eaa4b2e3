package main

// The claim mapper: who a caller of the frontend is. The server's own services present the internode
// certificate (its common name, from a chain ending at the internode CA — a certificate of the client CA
// with that name is not one of them); everyone else presents a token of the cluster: Ed25519, issuer
// tiller-cluster, audience tiller-cluster-api (the stand-in IdP's ID tokens carry the UI's client id and
// are refused), an expiry, an id (jti) that is not on the revocation list, a known role, a namespace.

import (
	"bufio"
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v4"
	"go.temporal.io/server/common/authorization"
)

const audience = "tiller-cluster-api"

type tokenClaims struct {
	jwt.RegisteredClaims
	Role      string   `json:"tiller_role"`
	Namespace string   `json:"tiller_namespace"`
	Groups    []string `json:"groups,omitempty"`
}

type policy struct {
	key         crypto.PublicKey
	internodeCN string
	internodeCA *x509.Certificate
	revoked     *revocations
}

func policyFromEnv() (*policy, error) {
	file := os.Getenv("TILLER_AUTH_PUBLIC_KEY")
	if file == "" {
		return nil, errors.New("TILLER_AUTH_PUBLIC_KEY is not set")
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	key, err := jwt.ParseEdPublicKeyFromPEM(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	cn := os.Getenv("TILLER_AUTH_INTERNODE_CN")
	if cn == "" {
		return nil, errors.New("TILLER_AUTH_INTERNODE_CN is not set")
	}
	caFile := os.Getenv("TILLER_AUTH_INTERNODE_CA")
	if caFile == "" {
		return nil, errors.New("TILLER_AUTH_INTERNODE_CA is not set")
	}
	caPEM, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	block, _ := pem.Decode(caPEM)
	if block == nil {
		return nil, fmt.Errorf("%s: no PEM certificate", caFile)
	}
	ca, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", caFile, err)
	}
	revokedFile := os.Getenv("TILLER_AUTH_REVOKED_FILE")
	if revokedFile == "" {
		return nil, errors.New("TILLER_AUTH_REVOKED_FILE is not set (it may name a file that does not exist yet)")
	}
	return &policy{key: key, internodeCN: cn, internodeCA: ca, revoked: &revocations{file: revokedFile}}, nil
}

// internode: the caller presented the internode certificate, verified up to the internode CA.
func (p *policy) internode(info *authorization.AuthInfo) bool {
	if info.TLSSubject == nil || info.TLSSubject.CommonName != p.internodeCN || info.TLSConnection == nil {
		return false
	}
	for _, chain := range info.TLSConnection.State.VerifiedChains {
		if len(chain) > 0 && chain[len(chain)-1].Equal(p.internodeCA) {
			return true
		}
	}
	return false
}

// GetClaims is the claim mapper: the internode certificate, or a valid token; anything else is an error
// (the frontend answers PermissionDenied without saying why).
func (p *policy) GetClaims(info *authorization.AuthInfo) (*authorization.Claims, error) {
	if info.AuthToken == "" && p.internode(info) {
		return &authorization.Claims{
			Subject:    p.internodeCN,
			System:     authorization.RoleAdmin,
			AuthType:   "mtls",
			Extensions: &principal{role: "system"},
		}, nil
	}
	raw := strings.TrimSpace(info.AuthToken)
	if raw == "" {
		return nil, errors.New("no token")
	}
	if len(raw) > maxTokenChars {
		return nil, errors.New("token too long")
	}
	raw = strings.TrimPrefix(raw, "Bearer ")
	var claims tokenClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) {
		if t.Method != jwt.SigningMethodEdDSA {
			return nil, fmt.Errorf("unexpected signing method %v", t.Header["alg"])
		}
		return p.key, nil
	})
	if err != nil {
		return nil, fmt.Errorf("token: %w", err)
	}
	switch {
	case claims.ExpiresAt == nil:
		return nil, errors.New("token has no expiry")
	case !claims.VerifyIssuer(issuer, true):
		return nil, errors.New("token from another issuer")
	case !claims.VerifyAudience(audience, true):
		return nil, errors.New("token for another audience")
	case claims.ID == "":
		return nil, errors.New("token has no id (jti)")
	case p.revoked.has(claims.ID):
		return nil, errors.New("token revoked")
	case !subjectPattern.MatchString(claims.Subject):
		return nil, errors.New("token subject is not a plain name")
	case !roles[claims.Role]:
		return nil, fmt.Errorf("unknown role %q", claims.Role)
	case claims.Namespace == "" && claims.Role != "admin":
		return nil, errors.New("token names no namespace")
	case len(claims.Groups) > maxGroups:
		return nil, errors.New("too many groups")
	}
	for _, g := range claims.Groups {
		if !subjectPattern.MatchString(g) {
			return nil, errors.New("token group is not a plain name")
		}
	}
	return &authorization.Claims{
		Subject:    claims.Subject,
		AuthType:   "jwt",
		Extensions: &principal{role: claims.Role, namespace: claims.Namespace, groups: claims.Groups},
	}, nil
}

// revocations: the revoked token ids, one a line, read again whenever the file's size or time changes
// (checked at most once a second). A file that cannot be read revokes everything: fail closed.
type revocations struct {
	file    string
	mu      sync.Mutex
	checked time.Time
	stamp   string
	ids     map[string]bool
	broken  bool
}

func (r *revocations) has(jti string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.checked) >= time.Second || r.ids == nil {
		r.checked = now
		r.load()
	}
	return r.broken || r.ids[jti]
}

func (r *revocations) load() {
	info, err := os.Stat(r.file)
	if errors.Is(err, os.ErrNotExist) {
		r.ids, r.stamp, r.broken = map[string]bool{}, "", false
		return
	}
	if err != nil {
		r.broken = true
		return
	}
	stamp := fmt.Sprintf("%d/%d", info.Size(), info.ModTime().UnixNano())
	if stamp == r.stamp && r.ids != nil {
		return
	}
	data, err := os.ReadFile(r.file)
	if err != nil {
		r.broken = true
		return
	}
	ids := map[string]bool{}
	lines := bufio.NewScanner(bytes.NewReader(data))
	for lines.Scan() {
		if id := strings.TrimSpace(lines.Text()); id != "" {
			ids[id] = true
		}
	}
	r.ids, r.stamp, r.broken = ids, stamp, false
}
