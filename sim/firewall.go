package sim

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
)

// Range is an inclusive range of IPv4 addresses, First ≤ Last, each address
// held as its 32-bit big-endian value.
type Range struct {
	First, Last uint32
}

// Contains reports whether addr lies in r.
func (r Range) Contains(addr uint32) bool { return r.First <= addr && addr <= r.Last }

// String formats r the way ParseRange reads it back: a single address, a
// CIDR block when r is one, or "first-last".
func (r Range) String() string {
	if r.First == r.Last {
		return FormatIPv4(r.First)
	}
	size := uint64(r.Last) - uint64(r.First) + 1
	if size&(size-1) == 0 && uint64(r.First)%size == 0 {
		bits := 32
		for s := size; s > 1; s >>= 1 {
			bits--
		}
		return fmt.Sprintf("%s/%d", FormatIPv4(r.First), bits)
	}
	return FormatIPv4(r.First) + "-" + FormatIPv4(r.Last)
}

// ParseBlock reads the block setting's value: blocked ranges separated
// by commas (each as ParseRange reads it), or "none" (or nothing) for
// none. The command line's --block, a variant, a scenario file, a link
// and the page all read it here. A bad range comes back as a *FieldError
// naming it.
func ParseBlock(value string) ([]Range, error) {
	value = strings.TrimSpace(value)
	if value == "none" || value == "" {
		return nil, nil
	}
	var rs []Range
	for _, s := range strings.Split(value, ",") {
		if strings.TrimSpace(s) == "none" {
			return nil, &FieldError{Field: "block", Value: QuoteInput(value),
				Allowed: "'none' blocks nothing and cannot be combined with ranges: give either ranges or none"}
		}
		r, err := ParseRange(s)
		if err != nil {
			return nil, &FieldError{Field: "block", Value: QuoteInput(s), Allowed: err.Error()}
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// ParseRange reads one blocked range: a CIDR block ("10.0.0.0/8"), an
// inclusive range ("10.0.0.0-10.0.255.255") or a single address
// ("192.0.2.7"). Only IPv4 is accepted.
func ParseRange(s string) (Range, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Range{}, fmt.Errorf("empty range: want a CIDR block like 10.0.0.0/8, a range like 10.0.0.0-10.0.255.255 or an address like 192.0.2.7")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil || !p.Addr().Is4() {
			return Range{}, fmt.Errorf("%q is not an IPv4 CIDR block: want a.b.c.d/n with n from 0 to 32", quoted(s))
		}
		first := addrValue(p.Masked().Addr())
		size := uint64(1) << (32 - p.Bits())
		return Range{First: first, Last: uint32(uint64(first) + size - 1)}, nil
	}
	if lo, hi, ok := strings.Cut(s, "-"); ok {
		a, err := ParseIPv4(strings.TrimSpace(lo))
		if err != nil {
			return Range{}, fmt.Errorf("range %q: start: %w", quoted(s), err)
		}
		b, err := ParseIPv4(strings.TrimSpace(hi))
		if err != nil {
			return Range{}, fmt.Errorf("range %q: end: %w", quoted(s), err)
		}
		if a > b {
			return Range{}, fmt.Errorf("range %q: start is after end; write the lower address first", quoted(s))
		}
		return Range{First: a, Last: b}, nil
	}
	a, err := ParseIPv4(s)
	if err != nil {
		return Range{}, err
	}
	return Range{First: a, Last: a}, nil
}

// ParseIPv4 reads a dotted-quad IPv4 address into its 32-bit value.
func ParseIPv4(s string) (uint32, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return 0, fmt.Errorf("%q is not an IPv4 address: want four numbers 0-255 joined by dots, like 192.0.2.7", quoted(s))
	}
	return addrValue(a), nil
}

// FormatIPv4 writes a 32-bit address value in dotted-quad form.
func FormatIPv4(v uint32) string {
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String()
}

func addrValue(a netip.Addr) uint32 {
	b := a.As4()
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}

// Firewall rejects requests whose source address lies in any blocked range.
// Its ranges are sorted and merged; a table over the first octet answers most
// lookups at once, and a binary search the rest.
type Firewall struct {
	ranges []Range // sorted, disjoint, non-adjacent
	// octet[a] says whether a.0.0.0/8 is wholly allowed (0), wholly
	// blocked (1) or needs the search (2).
	octet [256]uint8
}

// NewFirewall builds a firewall that blocks the union of the given ranges.
func NewFirewall(ranges []Range) Firewall {
	rs := slices.Clone(ranges)
	slices.SortFunc(rs, func(a, b Range) int {
		switch {
		case a.First < b.First:
			return -1
		case a.First > b.First:
			return 1
		}
		return 0
	})
	merged := rs[:0]
	for _, r := range rs {
		if n := len(merged); n > 0 && uint64(r.First) <= uint64(merged[n-1].Last)+1 {
			merged[n-1].Last = max(merged[n-1].Last, r.Last)
			continue
		}
		merged = append(merged, r)
	}
	f := Firewall{ranges: merged}
	for _, r := range merged {
		lo, hi := r.First>>24, r.Last>>24
		for a := lo; a <= hi; a++ {
			whole := (a > lo || r.First&0xffffff == 0) && (a < hi || r.Last&0xffffff == 0xffffff)
			switch {
			case whole:
				f.octet[a] = 1
			case f.octet[a] == 0:
				f.octet[a] = 2
			}
		}
	}
	return f
}

// Blocks reports whether a request from src is rejected.
func (f *Firewall) Blocks(src uint32) bool {
	switch f.octet[src>>24] {
	case 0:
		return false
	case 1:
		return true
	}
	return f.search(src)
}

func (f *Firewall) search(src uint32) bool {
	rs := f.ranges
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if rs[mid].Last < src {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(rs) && rs[lo].First <= src
}

// Ranges returns the merged blocked ranges in ascending order.
func (f *Firewall) Ranges() []Range { return slices.Clone(f.ranges) }
