package pii

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/sluice-api/sluice/internal/services/servicetest"
)

func hmacHex(key, msg string) string {
	m := hmac.New(sha256.New, []byte(key))
	m.Write([]byte(msg))
	return hex.EncodeToString(m.Sum(nil)[:4])
}

// mixedText builds about n code points of ordinary prose in several languages interleaved with
// chat and e-mail lines that carry every entity type, with values that vary (seeded), so that no
// cache makes a repeated value free.
func mixedText(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	first := []string{"Maria", "Jan", "Sophie", "Luca", "Ana", "Pieter", "Zofia", "Tom", "Camille", "Javier"}
	last := []string{"Garcia", "de Vries", "Müller", "Rossi", "Silva", "Kowalska", "Martin", "O'Brien", "Novak", "Jansen"}
	phones := []string{"+49 171 %07d", "06 %02d %02d %02d %02d", "+44 20 7946 %04d", "(650) 253-%04d", "+33 1 42 68 %02d %02d", "0171 %07d"}
	prose := servicetest.Prose(n)
	var b strings.Builder
	for i := 0; b.Len() < len(prose); i++ {
		f, l := first[rng.IntN(len(first))], last[rng.IntN(len(last))]
		p := phones[rng.IntN(len(phones))]
		var phone string
		switch strings.Count(p, "%") {
		case 1:
			phone = fmt.Sprintf(p, rng.IntN(10000))
		case 2:
			phone = fmt.Sprintf(p, rng.IntN(100), rng.IntN(100))
		default:
			phone = fmt.Sprintf(p, 10+rng.IntN(80), rng.IntN(100), rng.IntN(100), rng.IntN(100))
		}
		fmt.Fprintf(&b, "Hi, I'm %s %s, mail me at %s.%s%d@example.com or call %s. ", f, l,
			strings.ToLower(f), strings.ToLower(strings.ReplaceAll(l, " ", "")), rng.IntN(1000), phone)
		fmt.Fprintf(&b, "Login from 10.%d.%d.%d, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, SSN 536-22-%04d. ",
			rng.IntN(256), rng.IntN(256), rng.IntN(256), 1000+rng.IntN(9000))
		start := (i * 700) % max(len(prose)-700, 1)
		chunk := prose[start:min(start+700, len(prose))]
		for len(chunk) > 0 && chunk[0]&0xC0 == 0x80 {
			chunk = chunk[1:]
		}
		for len(chunk) > 0 && chunk[len(chunk)-1]&0x80 != 0 {
			chunk = chunk[:len(chunk)-1]
		}
		b.WriteString(chunk)
	}
	out := []rune(b.String())
	return string(out[:min(n, len(out))])
}
