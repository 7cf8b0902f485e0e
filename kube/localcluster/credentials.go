package localcluster

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
)

// credentials are the files the control plane authenticates with, in Dir/certs.
type credentials struct {
	token          string // the admin's bearer token
	tokenFile      string // static token file: the admin user in system:masters
	serviceKey     string // PEM RSA private key that signs service-account tokens
	servicePubKey  string // PEM public key that verifies them
	apiserverCerts string // folder where kube-apiserver writes its self-signed serving certificate
}

// writeCredentials generates a random admin token and a service-account key pair into dir/certs.
func writeCredentials(dir string) (credentials, error) {
	certs := filepath.Join(dir, "certs")
	creds := credentials{
		tokenFile:      filepath.Join(certs, "tokens.csv"),
		serviceKey:     filepath.Join(certs, "sa.key"),
		servicePubKey:  filepath.Join(certs, "sa.pub"),
		apiserverCerts: certs,
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
	return creds, nil
}
