package v1

import (
	"encoding/json"
	"testing"
	"time"
)

func TestNillableDurationJSON(t *testing.T) {
	type holder struct {
		D NillableDuration `json:"d,omitzero"`
	}
	tests := []struct {
		in        string
		wantSet   bool
		wantNever bool
		wantDur   time.Duration
		wantOut   string
		wantValid bool
	}{
		{in: `{}`, wantOut: `{}`, wantValid: true},
		{in: `{"d":null}`, wantOut: `{}`, wantValid: true},
		{in: `{"d":"Never"}`, wantSet: true, wantNever: true, wantOut: `{"d":"Never"}`, wantValid: true},
		{in: `{"d":"720h"}`, wantSet: true, wantDur: 720 * time.Hour, wantOut: `{"d":"720h"}`, wantValid: true},
		{in: `{"d":"1h30m"}`, wantSet: true, wantDur: 90 * time.Minute, wantOut: `{"d":"1h30m"}`, wantValid: true},
		{in: `{"d":"0s"}`, wantSet: true, wantDur: 0, wantOut: `{"d":"0s"}`, wantValid: true},
		{in: `{"d":"1.5h"}`, wantSet: true, wantOut: `{"d":"1.5h"}`},
		{in: `{"d":"never"}`, wantSet: true, wantOut: `{"d":"never"}`},
		{in: `{"d":""}`, wantSet: true, wantOut: `{"d":""}`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var h holder
			if err := json.Unmarshal([]byte(tt.in), &h); err != nil {
				t.Fatal(err)
			}
			if h.D.IsSet() != tt.wantSet || h.D.Never != tt.wantNever {
				t.Errorf("IsSet=%v Never=%v, want %v %v", h.D.IsSet(), h.D.Never, tt.wantSet, tt.wantNever)
			}
			if tt.wantDur != 0 && (h.D.Duration == nil || *h.D.Duration != tt.wantDur) {
				t.Errorf("Duration = %v, want %v", h.D.Duration, tt.wantDur)
			}
			out, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.wantOut {
				t.Errorf("Marshal = %s, want %s", out, tt.wantOut)
			}
			if valid := len(validateNillableDuration(nil, h.D)) == 0; valid != tt.wantValid {
				t.Errorf("valid = %v, want %v", valid, tt.wantValid)
			}
		})
	}
}

func TestNillableDurationRejectsNonStrings(t *testing.T) {
	var d NillableDuration
	if err := json.Unmarshal([]byte(`5`), &d); err == nil {
		t.Fatal("Unmarshal(5) succeeded, want an error")
	}
}

func TestNillableDurationDeepCopyIsIndependent(t *testing.T) {
	d := NewNillableDuration(time.Hour)
	c := d.DeepCopy()
	*c.Duration = time.Minute
	if *d.Duration != time.Hour {
		t.Errorf("changing the copy changed the original to %v", *d.Duration)
	}
}

func TestNillableDurationWrittenBackAsRead(t *testing.T) {
	// An object read and written back must not change: the API server compares NodeClaim specs.
	type holder struct {
		D NillableDuration `json:"d,omitzero"`
	}
	for _, written := range []string{"720h", "1h30m", "90m", "719h60m", "168h"} {
		var h holder
		in := `{"d":"` + written + `"}`
		if err := json.Unmarshal([]byte(in), &h); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(h)
		if err != nil || string(out) != in {
			t.Errorf("%s came back as %s (%v)", in, out, err)
		}
	}
	if got := NewNillableDuration(720 * time.Hour).String(); got != "720h" {
		t.Errorf("a constructed 720h prints %q", got)
	}
}
