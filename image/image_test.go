package image

import (
	"archive/tar"
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"debug/elf"
	"encoding/pem"
	"io"
	"io/fs"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// tinyBinaries compiles a five-line static program for each default platform: the image's
// checks and layout are the same for it as for nodepilot, at a fraction of the build.
func tinyBinaries(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() {\n\tprintln(\"nodepilot\")\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	platforms, err := ParsePlatforms(DefaultPlatforms)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range platforms {
		goos, goarch, _ := strings.Cut(p, "/")
		bin := filepath.Join(dir, goos+"-"+goarch)
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", p, err, b)
		}
		out[p] = bin
	}
	return out
}

// testCA writes a PEM bundle of one self-signed certificate, so that the tests do not depend on
// the machine's.
func testCA(t *testing.T) (string, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Unix(0, 0), NotAfter: time.Unix(1<<32, 0), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	path := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func options(bins map[string]string, ca string) Options {
	return Options{CACertificates: ca, Version: "v1.2.3", Revision: "abc123", Binaries: []PlatformBinary{
		{Platform: "linux/amd64", Path: bins["linux/amd64"]},
		{Platform: "linux/arm64", Path: bins["linux/arm64"]},
	}}
}

// readBack writes the index as a layout and returns the index read from it, as a copying tool
// would find it.
func readBack(t *testing.T, idx v1.ImageIndex) v1.ImageIndex {
	t.Helper()
	dir := t.TempDir()
	if err := Write(dir, idx, "v1.2.3"); err != nil {
		t.Fatal(err)
	}
	p, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := p.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "v1.2.3" {
		t.Fatalf("index.json: want one index named v1.2.3, got %+v", m.Manifests)
	}
	out, err := top.ImageIndex(m.Manifests[0].Digest)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerFiles reads the image's single layer: each file's header and contents by name.
func layerFiles(t *testing.T, img v1.Image) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer, got %d (%v)", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	headers, contents := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return headers, contents
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		headers[strings.TrimSuffix(h.Name, "/")], contents[strings.TrimSuffix(h.Name, "/")] = h, b
	}
}

func TestBuild(t *testing.T) {
	bins := tinyBinaries(t)
	caPath, ca := testCA(t)
	built, err := Build(t.Context(), options(bins, caPath))
	if err != nil {
		t.Fatal(err)
	}
	idx := readBack(t, built)
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
	}
	if !slices.Equal(platforms, []string{"linux/amd64", "linux/arm64"}) {
		t.Fatalf("index platforms %v, want linux/amd64 and linux/arm64", platforms)
	}
	if m.MediaType != "application/vnd.oci.image.index.v1+json" || m.Annotations["org.opencontainers.image.version"] != "v1.2.3" {
		t.Errorf("index media type %s, annotations %v", m.MediaType, m.Annotations)
	}
	tests := []struct {
		os, arch string
		machine  elf.Machine
	}{
		{"linux", "amd64", elf.EM_X86_64},
		{"linux", "arm64", elf.EM_AARCH64},
	}
	for i, tt := range tests {
		t.Run(tt.arch, func(t *testing.T) {
			img, err := idx.Image(m.Manifests[i].Digest)
			if err != nil {
				t.Fatal(err)
			}
			cf, err := img.ConfigFile()
			if err != nil {
				t.Fatal(err)
			}
			c := cf.Config
			if cf.OS != tt.os || cf.Architecture != tt.arch {
				t.Errorf("config platform %s/%s", cf.OS, cf.Architecture)
			}
			if !slices.Equal(c.Entrypoint, []string{"/nodepilot"}) || !slices.Equal(c.Cmd, []string{"controller"}) ||
				c.User != "65532:65532" || c.WorkingDir != "/" {
				t.Errorf("config entrypoint %q cmd %q user %q workdir %q", c.Entrypoint, c.Cmd, c.User, c.WorkingDir)
			}
			for k, want := range map[string]string{"org.opencontainers.image.source": Source, "org.opencontainers.image.title": "nodepilot",
				"org.opencontainers.image.version": "v1.2.3", "org.opencontainers.image.revision": "abc123"} {
				if c.Labels[k] != want {
					t.Errorf("label %s = %q, want %q", k, c.Labels[k], want)
				}
			}
			headers, contents := layerFiles(t, img)
			if h := headers["nodepilot"]; h == nil || h.Typeflag != tar.TypeReg || h.FileInfo().Mode() != 0o755 {
				t.Fatalf("/nodepilot: %+v, want a 0755 file", h)
			}
			f, err := elf.NewFile(bytes.NewReader(contents["nodepilot"]))
			if err != nil {
				t.Fatal(err)
			}
			if f.Machine != tt.machine {
				t.Errorf("/nodepilot is for %s, want %s", f.Machine, tt.machine)
			}
			if !strings.Contains(string(contents["etc/passwd"]), "\nnonroot:x:65532:65532:") ||
				!strings.Contains(string(contents["etc/group"]), "\nnonroot:x:65532:") {
				t.Errorf("/etc/passwd %q, /etc/group %q: no nonroot 65532", contents["etc/passwd"], contents["etc/group"])
			}
			if h := headers["tmp"]; h == nil || h.FileInfo().Mode() != fs.ModeDir|fs.ModeSticky|0o777 {
				t.Errorf("/tmp: %+v, want a 1777 directory", h)
			}
			if !bytes.Equal(contents["etc/ssl/certs/ca-certificates.crt"], ca) {
				t.Error("/etc/ssl/certs/ca-certificates.crt is not the bundle given")
			}
		})
	}
}

// TestBuildReproducible: the same binaries and options give the same digest, and another
// version another one.
func TestBuildReproducible(t *testing.T) {
	bins := tinyBinaries(t)
	caPath, _ := testCA(t)
	digest := func(opts Options) v1.Hash {
		idx, err := Build(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		h, err := readBack(t, idx).Digest()
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	opts := options(bins, caPath)
	first, second := digest(opts), digest(opts)
	if first != second {
		t.Fatalf("built twice: %s then %s", first, second)
	}
	opts.Version = "v1.2.4"
	if other := digest(opts); other == first {
		t.Fatalf("another version gave the same digest %s", other)
	}
}

func TestBuildRefuses(t *testing.T) {
	bins := tinyBinaries(t)
	caPath, _ := testCA(t)
	notELF := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		binaries []PlatformBinary
		ca       string
		want     []string
	}{
		{"unknown platform", []PlatformBinary{{"linux/sparc", bins["linux/amd64"]}}, caPath,
			[]string{`"linux/sparc"`, "use linux/amd64 or linux/arm64"}},
		{"missing binary", []PlatformBinary{{"linux/amd64", "/nonexistent/nodepilot"}}, caPath,
			[]string{"linux/amd64", "/nonexistent/nodepilot", "no such file"}},
		{"another architecture's binary", []PlatformBinary{{"linux/arm64", bins["linux/amd64"]}}, caPath,
			[]string{"EM_X86_64, not linux/arm64", "GOARCH=arm64"}},
		{"not a binary", []PlatformBinary{{"linux/amd64", notELF}}, caPath, []string{"not a Linux executable"}},
		{"platform twice", []PlatformBinary{{"linux/amd64", bins["linux/amd64"]}, {"linux/amd64", bins["linux/amd64"]}}, caPath,
			[]string{`"linux/amd64" given twice`}},
		{"no binary", nil, caPath, []string{"no binary"}},
		{"no CA certificates", []PlatformBinary{{"linux/amd64", bins["linux/amd64"]}}, "/nonexistent/ca.crt",
			[]string{"/nonexistent/ca.crt: not found", "ca-certificates"}},
		{"CA certificates without a certificate", []PlatformBinary{{"linux/amd64", bins["linux/amd64"]}}, notELF,
			[]string{"no PEM certificate"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Build(t.Context(), Options{Binaries: tt.binaries, CACertificates: tt.ca})
			if err == nil {
				t.Fatal("built")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestParsePlatforms(t *testing.T) {
	tests := []struct {
		list    string
		want    []string
		wantErr string
	}{
		{DefaultPlatforms, []string{"linux/amd64", "linux/arm64"}, ""},
		{"linux/arm64", []string{"linux/arm64"}, ""},
		{"linux/amd64,linux/sparc", nil, `platform "linux/sparc": not one nodepilot's image is built for: use linux/amd64 or linux/arm64`},
		{"linux/amd64,linux/amd64", nil, `platform "linux/amd64" given twice`},
		{"", nil, `platform ""`},
	}
	for _, tt := range tests {
		got, err := ParsePlatforms(tt.list)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.list, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v, %v; want %v", tt.list, got, err, tt.want)
		}
	}
}

// TestWriteRefusesAnotherDirectory: Write replaces its own layout but not a directory of
// something else given to it by mistake.
func TestWriteRefusesAnotherDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Write(dir, nil, "dev")
	if err == nil || !strings.Contains(err.Error(), "no OCI image layout: refusing to replace it") {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Fatal(err)
	}
}
