package credentials

import (
	"bytes"
	"testing"
)

// TestDerivedKeys: every customer has its own encryption and MAC keys,
// different from each other and from the master key, and stable.
func TestDerivedKeys(t *testing.T) {
	v, err := NewVault(NewMasterKey())
	if err != nil {
		t.Fatal(err)
	}
	encA, macA, err := v.keys.Load().current.customerKeys("aaaaaaaaaaaaaaaaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	encB, macB, err := v.keys.Load().current.customerKeys("bbbbbbbbbbbbbbbbbbbbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	encA2, macA2, _ := v.keys.Load().current.customerKeys("aaaaaaaaaaaaaaaaaaaaaaaa")
	keys := [][]byte{encA, macA, encB, macB, v.keys.Load().current.secret}
	for i := range keys {
		if len(keys[i]) != 32 {
			t.Fatalf("key %d has %d bytes", i, len(keys[i]))
		}
		for j := i + 1; j < len(keys); j++ {
			if bytes.Equal(keys[i], keys[j]) {
				t.Fatalf("keys %d and %d are equal", i, j)
			}
		}
	}
	if !bytes.Equal(encA, encA2) || !bytes.Equal(macA, macA2) {
		t.Fatal("derivation is not deterministic")
	}
	other, _ := NewVault(NewMasterKey())
	encO, _, _ := other.keys.Load().current.customerKeys("aaaaaaaaaaaaaaaaaaaaaaaa")
	if bytes.Equal(encA, encO) {
		t.Fatal("another master key gives the same customer key")
	}
	if _, _, err := v.keys.Load().current.customerKeys(""); err == nil {
		t.Fatal("an empty customer must be refused")
	}
}
