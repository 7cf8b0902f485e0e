package emulator

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"net/url"
	"sort"
)

// pageToken is what a NextToken carries: where the next page starts, and a fingerprint of the
// request, so that a token given with other parameters is refused as AWS refuses it.
type pageToken struct {
	Offset      int    `json:"o"`
	Fingerprint uint64 `json:"f"`
}

// fingerprint hashes the request's parameters except the paging ones.
func fingerprint(v url.Values, skip ...string) uint64 {
	keys := make([]string, 0, len(v))
outer:
	for k := range v {
		for _, s := range skip {
			if k == s {
				continue outer
			}
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := fnv.New64a()
	for _, k := range keys {
		h.Write([]byte(k))
		for _, x := range v[k] {
			h.Write([]byte{0})
			h.Write([]byte(x))
		}
		h.Write([]byte{1})
	}
	return h.Sum64()
}

func encodeToken(offset int, fp uint64) string {
	b, _ := json.Marshal(pageToken{Offset: offset, Fingerprint: fp})
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeToken returns the offset a token points at; ok is false for a token that is malformed
// or was issued for other parameters.
func decodeToken(token string, fp uint64) (offset int, ok bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, false
	}
	var t pageToken
	if err := json.Unmarshal(b, &t); err != nil || t.Fingerprint != fp || t.Offset < 0 {
		return 0, false
	}
	return t.Offset, true
}

// ec2Page cuts [start, end) out of n items for an EC2 request with NextToken and a page size,
// and returns the token of the next page ("" on the last).
func ec2Page(q query, n, size int) (start, end int, next string, err *apiError) {
	fp := fingerprint(q.v, "NextToken", "MaxResults")
	if tok := q.str("NextToken"); tok != "" {
		off, ok := decodeToken(tok, fp)
		if !ok || off > n {
			return 0, 0, "", newError(0, "InvalidPaginationToken", "The pagination token '"+tok+"' is invalid.")
		}
		start = off
	}
	end = min(n, start+size)
	if end < n {
		next = encodeToken(end, fp)
	}
	return start, end, next, nil
}
