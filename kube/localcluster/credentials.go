package localcluster

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// credentials are the files the control plane authenticates with, in Dir/certs.
type credentials struct {
	token          string // the admin's bearer token
	tokenFile      string // static token file: the admin user in system:masters
	serviceKey     string // PEM RSA private key that signs service-account tokens
	servicePubKey  string // PEM public key that verifies them
	apiserverCerts string // folder where kube-apiserver writes its self-signed serving certificate
	// The API aggregation layer's front proxy: kube-apiserver presents the client certificate to
	// extension API servers (metrics-server), which trust the CA for the user it names.
	frontProxyCA, frontProxyCert, frontProxyKey string
}

// frontProxyUser is the name the front proxy's client certificate carries, the only one
// extension API servers accept user headers from.
const frontProxyUser = "front-proxy-client"

// writeCredentials generates a random admin token and a service-account key pair into dir/certs.
func writeCredentials(dir string) (credentials, error) {
	certs := filepath.Join(dir, "certs")
	creds := credentials{
		tokenFile:      filepath.Join(certs, "tokens.csv"),
		serviceKey:     filepath.Join(certs, "sa.key"),
		servicePubKey:  filepath.Join(certs, "sa.pub"),
		apiserverCerts: certs,
		frontProxyCA:   filepath.Join(certs, "front-proxy-ca.crt"),
		frontProxyCert: filepath.Join(certs, "front-proxy-client.crt"),
		frontProxyKey:  filepath.Join(certs, "front-proxy-client.key"),
	}
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return creds, fmt.Errorf("localcluster: create %s: %w", certs, err)
	}

	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		return creds, fmt.Errorf("localcluster: generate admin token: %w", err)
	}
	creds.token = hex.EncodeToString(secret)
	tokens := creds.token + ",admin,admin,system:masters\n"
	if err := os.WriteFile(creds.tokenFile, []byte(tokens), 0o600); err != nil {
		return creds, fmt.Errorf("localcluster: write %s: %w", creds.tokenFile, err)
	}

	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return creds, fmt.Errorf("localcluster: generate service-account key: %w", err)
	}
	private := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(creds.serviceKey, private, 0o600); err != nil {
		return creds, fmt.Errorf("localcluster: write %s: %w", creds.serviceKey, err)
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return creds, fmt.Errorf("localcluster: encode service-account public key: %w", err)
	}
	public := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if err := os.WriteFile(creds.servicePubKey, public, 0o644); err != nil {
		return creds, fmt.Errorf("localcluster: write %s: %w", creds.servicePubKey, err)
	}
	if err := writeFrontProxy(creds); err != nil {
		return creds, fmt.Errorf("localcluster: front proxy certificates: %w", err)
	}
	return creds, nil
}

// writeFrontProxy generates the front proxy's CA (client-go's, valid ten years) and the client
// certificate it signs, valid for a year (a cluster lives as long as a demo or a test).
func writeFrontProxy(creds credentials) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "front-proxy-ca"}, caKey)
	if err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	template := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: frontProxyUser},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(1, 0, 0),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	caPEM := pem.EncodeToMemory(&pem.Block{Type: cert.CertificateBlockType, Bytes: ca.Raw})
	clientPEM := pem.EncodeToMemory(&pem.Block{Type: cert.CertificateBlockType, Bytes: der})
	for path, data := range map[string][]byte{creds.frontProxyCA: caPEM, creds.frontProxyCert: clientPEM, creds.frontProxyKey: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
	}
	return nil
}
