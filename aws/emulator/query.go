package emulator

import (
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// query reads the flattened parameters of the query protocols: "Name.1", "Filter.2.Value.1",
// "Tags.member.3.Key". A query has a prefix so that a nested structure reads like the top level.
type query struct {
	v      url.Values
	prefix string
}

// str returns the first value of key, or "".
func (q query) str(key string) string { return q.v.Get(q.prefix + key) }

// has reports whether key is present.
func (q query) has(key string) bool {
	_, ok := q.v[q.prefix+key]
	return ok
}

// present reports whether key or any parameter under it ("key.*") is present.
func (q query) present(key string) bool {
	if q.has(key) {
		return true
	}
	for k := range q.v {
		if strings.HasPrefix(k, q.prefix+key+".") {
			return true
		}
	}
	return false
}

// sub returns the structure under key.
func (q query) sub(key string) query { return query{v: q.v, prefix: q.prefix + key + "."} }

// indices returns the list positions present under key, in order: for "Filter" the N of every
// "Filter.N" or "Filter.N.*" parameter. Malformed positions are ignored.
func (q query) indices(key string) []int {
	p := q.prefix + key + "."
	seen := map[int]bool{}
	var out []int
	for k := range q.v {
		rest, ok := strings.CutPrefix(k, p)
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(num)
		if err != nil || n < 1 || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// list returns the values of the list of strings under key ("InstanceId.1", "InstanceId.2").
func (q query) list(key string) []string {
	var out []string
	for _, n := range q.indices(key) {
		if v, ok := q.v[q.prefix+key+"."+strconv.Itoa(n)]; ok && len(v) > 0 {
			out = append(out, v[0])
		}
	}
	return out
}

// structs returns the structures of the list under key ("Filter.1.Name", "Filter.2.Name").
func (q query) structs(key string) []query {
	var out []query
	for _, n := range q.indices(key) {
		out = append(out, q.sub(key+"."+strconv.Itoa(n)))
	}
	return out
}

// intParam parses key as an integer; ok is false when it is absent.
func (q query) intParam(key string) (n int, ok bool, err *apiError) {
	s := q.str(key)
	if !q.has(key) {
		return 0, false, nil
	}
	n, perr := strconv.Atoi(s)
	if perr != nil {
		return 0, true, newError(0, "InvalidParameterValue", "Value ("+s+") for parameter "+key+" is invalid. Expecting an integer.")
	}
	return n, true, nil
}

// boolParam parses key as a boolean (absent is false).
func (q query) boolParam(key string) bool { return strings.EqualFold(q.str(key), "true") }

// tags reads a list of Key/Value structures.
func (q query) tags(key string) map[string]string {
	out := map[string]string{}
	for _, t := range q.structs(key) {
		if k := t.str("Key"); k != "" {
			out[k] = t.str("Value")
		}
	}
	return out
}
