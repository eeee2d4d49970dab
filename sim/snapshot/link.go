package snapshot

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
)

// FragmentPrefix starts the URL fragment of a share link.
const FragmentPrefix = "#r="

// MaxLink bounds the length of a link ParseLink accepts: the base64 of a
// snapshot of MaxSize bytes, with room for the address.
const MaxLink = MaxSize/3*4 + 8<<10

// Fragment returns the URL fragment of a share link to the encoded snapshot
// data (from Encode): "#r=" followed by data in base64url without padding.
func Fragment(data []byte) string {
	return FragmentPrefix + base64.RawURLEncoding.EncodeToString(data)
}

// Link returns the share link of data on the page at base, replacing any
// fragment base has.
func Link(base string, data []byte) string {
	if i := strings.IndexByte(base, '#'); i >= 0 {
		base = base[:i]
	}
	return base + Fragment(data)
}

// LinkData returns the snapshot bytes of a share link. It accepts a whole
// link ("https://…/#r=…"), a fragment ("#r=…" or "r=…") or the bare
// base64url text. In a fragment of several '&'-separated parameters, the
// one named r is used. The bytes are not decoded: see ParseLink.
func LinkData(link string) ([]byte, error) {
	if len(link) > MaxLink {
		return nil, fmt.Errorf("share link: %d characters; at most %d allowed", len(link), MaxLink)
	}
	s := strings.TrimSpace(link)
	frag, hasHash := s, false
	if i := strings.IndexByte(s, '#'); i >= 0 {
		frag, hasHash = s[i+1:], true
	}
	found := false
	for p := range strings.SplitSeq(frag, "&") {
		if v, ok := strings.CutPrefix(p, "r="); ok {
			frag, found = v, true
			break
		}
	}
	if !found && (hasHash || strings.Contains(frag, "=")) {
		return nil, errors.New("share link: no r= parameter in the fragment; want a link ending in #r= and the snapshot in base64url")
	}
	if frag == "" {
		return nil, errors.New("share link: the snapshot after r= is empty")
	}
	data, err := base64.RawURLEncoding.Strict().DecodeString(frag)
	if err != nil {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			return nil, fmt.Errorf("share link: bad character or length at position %d of the snapshot: want base64url (A–Z a–z 0–9 - _) without padding", int64(ce))
		}
		return nil, fmt.Errorf("share link: %v", err)
	}
	return data, nil
}

// ParseLink decodes the snapshot of a share link (see LinkData).
func ParseLink(link string) (Snapshot, error) {
	data, err := LinkData(link)
	if err != nil {
		return Snapshot{}, err
	}
	return Decode(data)
}
