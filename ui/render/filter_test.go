package render

import "testing"

func TestFilter(t *testing.T) {
	web := &Row{Cells: []string{"shop", "web-1", "Running"}, Labels: map[string]string{"app": "web", "tier": "front"}}
	batch := &Row{Cells: []string{"batch", "worker-1", "Pending"}, Labels: map[string]string{"app": "worker"}}
	for _, tc := range []struct {
		filter   string
		web, job bool
	}{
		{"", true, true},
		{"web", true, false},
		{"WEB", true, false},
		{"pend|run", true, true},
		{"^batch$", false, true},
		{"!web", false, true},
		{"!", false, false},
		{"-l app=web", true, false},
		{"-l app!=web", false, true},
		{"-l tier", true, false},
		{"-l app in (web,worker)", true, true},
	} {
		f, err := ParseFilter(tc.filter)
		if err != nil {
			t.Fatalf("%q: %v", tc.filter, err)
		}
		if got := f.Match(web); got != tc.web {
			t.Errorf("%q on web: got %v", tc.filter, got)
		}
		if got := f.Match(batch); got != tc.job {
			t.Errorf("%q on batch: got %v", tc.filter, got)
		}
		if f.Text() != tc.filter {
			t.Errorf("Text() = %q, want %q", f.Text(), tc.filter)
		}
	}
	for _, bad := range []string{"web(", "!a[", "-l app in (a", "-l =x"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"web", "!web", "-l app=web", "-l a in (b,c)", "(", "!", "-l"} {
		f.Add(s)
	}
	row := &Row{Cells: []string{"a", "b"}, Labels: map[string]string{"app": "web"}}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil {
			return
		}
		flt.Match(row)
		if flt.Text() != s {
			t.Fatalf("Text() = %q, want %q", flt.Text(), s)
		}
	})
}
