package render

// index finds glossary terms in word sequences. Entries are keyed by their
// folded word sequence; longest holds, per first word, the most words any
// term starting with it has, so most words of a text cost one map lookup
// and no allocation, whatever the size of the glossary.
type index struct {
	entries map[string]*Term
	longest map[string]int
}

// newIndex indexes every term and alias. When two entries share a term the
// one with the smaller ID wins, so the result does not depend on the order
// the caller passes them in.
func newIndex(glossary []Term) *index {
	x := &index{entries: map[string]*Term{}, longest: map[string]int{}}
	for i := range glossary {
		t := &glossary[i]
		x.add(t, t.Term)
		for _, a := range t.Aliases {
			x.add(t, a)
		}
	}
	return x
}

func (x *index) add(t *Term, phrase string) {
	ws := words(phrase)
	if len(ws) == 0 {
		return
	}
	key := keyOf(ws)
	if old, ok := x.entries[key]; ok && old.ID <= t.ID {
		return
	}
	x.entries[key] = t
	if len(ws) > x.longest[ws[0].key] {
		x.longest[ws[0].key] = len(ws)
	}
}

// match is the longest term starting at ws[0] whose words are joined in s,
// and how many words it spans.
func (x *index) match(s string, ws []word) (*Term, int) {
	n := min(x.longest[ws[0].key], len(ws))
	for ; n > 0; n-- {
		if t, ok := x.entries[keyOf(ws[:n])]; ok && joined(s, ws[:n]) {
			return t, n
		}
	}
	return nil, 0
}

// each calls fn for every entry a term of which starts at some word of s,
// whether or not a longer term covers it.
func (x *index) each(s string, fn func(*Term)) {
	ws := words(s)
	for i := range ws {
		for n := min(x.longest[ws[i].key], len(ws)-i); n > 0; n-- {
			if t, ok := x.entries[keyOf(ws[i:i+n])]; ok {
				fn(t)
			}
		}
	}
}
