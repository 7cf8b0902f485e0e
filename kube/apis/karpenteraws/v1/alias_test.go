package v1

import "testing"

func TestParseAlias(t *testing.T) {
	tests := []struct {
		in      string
		want    Alias
		wantErr bool
	}{
		{in: "al2023@latest", want: Alias{Family: AMIFamilyAL2023, Version: "latest"}},
		{in: "al2@v20240625", want: Alias{Family: AMIFamilyAL2, Version: "v20240625"}},
		{in: "bottlerocket@v1.20.0", want: Alias{Family: AMIFamilyBottlerocket, Version: "v1.20.0"}},
		{in: "windows2019@latest", want: Alias{Family: AMIFamilyWindows2019, Version: "latest"}},
		{in: "windows2019@v1", wantErr: true},
		{in: "AL2023@latest", wantErr: true},
		{in: "al2023", wantErr: true},
		{in: "al2023@", wantErr: true},
		{in: "@latest", wantErr: true},
		{in: "al-2@latest", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseAlias(tt.in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseAlias(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("ParseAlias(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if err == nil && got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
		})
	}
}

func TestAMIFamily(t *testing.T) {
	nc := validEC2NodeClass()
	if got := nc.AMIFamily(); got != AMIFamilyAL2023 {
		t.Errorf("AMIFamily() from alias = %q, want AL2023", got)
	}
	nc.Spec.AMIFamily = ptr(AMIFamilyCustom)
	if got := nc.AMIFamily(); got != AMIFamilyCustom {
		t.Errorf("AMIFamily() with amiFamily set = %q, want Custom", got)
	}
	nc.Spec.AMIFamily = nil
	nc.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-1"}}
	if got := nc.AMIFamily(); got != AMIFamilyCustom {
		t.Errorf("AMIFamily() without alias or family = %q, want Custom", got)
	}
}
