package aws

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadConfigNamesTheFix: each way of having no region or no credentials is one error that
// says what to set, found at start, without waiting on the instance metadata service.
func TestLoadConfigNamesTheFix(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "config")
	if err := os.WriteFile(config, []byte("[profile eu]\nregion = eu-west-1\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		opts   ConfigOptions
		env    map[string]string
		is     error    // the sentinel it wraps, if any
		want   []string // parts of the message
		region string   // when it loads
	}{
		{name: "no region anywhere", opts: ConfigOptions{IMDSRegion: true}, is: ErrNoRegion, want: []string{"--region", "AWS_REGION", "AWS_PROFILE", "IMDS"}},
		{name: "no credentials anywhere", opts: ConfigOptions{Region: "us-east-1"}, is: ErrNoCredentials,
			want: []string{"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "pod identity", "IMDS"}},
		{name: "a profile that does not exist", opts: ConfigOptions{Region: "us-east-1", Profile: "nope"},
			want: []string{`profile "nope"`, "~/.aws/config", "AWS_PROFILE"}},
		{name: "the profile's region and keys", opts: ConfigOptions{Profile: "eu", IMDSRegion: true}, region: "eu-west-1"},
		{name: "--region wins", opts: ConfigOptions{Region: "ap-south-1", Profile: "eu"}, region: "ap-south-1"},
		{name: "keys from the environment", opts: ConfigOptions{Region: "us-east-1"},
			env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"}, region: "us-east-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, k := range []string{"AWS_REGION", "AWS_DEFAULT_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
				"AWS_SESSION_TOKEN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
				t.Setenv(k, "")
			}
			t.Setenv("HOME", dir)
			t.Setenv("AWS_CONFIG_FILE", config)
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
			// Off EC2, IMDS never answers; disabled, the SDK says so at once.
			t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			cfg, err := LoadConfig(context.Background(), tc.opts)
			if tc.region != "" {
				if err != nil || cfg.Region != tc.region {
					t.Fatalf("LoadConfig = region %q, %v; want %s", cfg.Region, err, tc.region)
				}
				return
			}
			if err == nil {
				t.Fatal("LoadConfig succeeded, want an error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
		})
	}
}
