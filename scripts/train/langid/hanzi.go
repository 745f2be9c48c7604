package main

import (
	"unicode/utf8"

	"golang.org/x/text/encoding/simplifiedchinese"
)

// rareHanzi is the share given to a GB2312 character neither table has: one in 100,000, a rare
// character, but above what a language lacking it scores (scripts/train/langid -unseen).
const rareHanzi = 1e-5

// simplifiedChinese completes lingua-go's Chinese character frequencies, which come mostly from
// Traditional Chinese text (國, 為, 們 rank high; 国, 为, 们 low), so that Simplified Chinese is not
// taken for Japanese, whose kanji often share the simplified forms (国, 学, 来). For every
// character of GB2312 (the 6,763 hanzi of the Simplified Chinese standard) it takes at least
// twice its Japanese frequency (Japanese text is about half kana, Chinese text all hanzi) and at
// least rareHanzi, then normalises. Characters only Japanese writes (駅, 円, 気) keep pointing
// to Japanese.
func simplifiedChinese(zh, ja map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(zh)+len(ja))
	for c, p := range zh {
		out[c] = p
	}
	dec := simplifiedchinese.GBK.NewDecoder()
	for hi := 0xb0; hi <= 0xf7; hi++ {
		for lo := 0xa1; lo <= 0xfe; lo++ {
			b, err := dec.Bytes([]byte{byte(hi), byte(lo)})
			if err != nil {
				continue
			}
			r, _ := utf8.DecodeRune(b)
			if r == utf8.RuneError || utf8.RuneLen(r) != len(b) {
				continue
			}
			c := string(r)
			out[c] = max(out[c], 2*ja[c], rareHanzi)
		}
	}
	total := 0.0
	for _, p := range out {
		total += p
	}
	for c, p := range out {
		if p == 0 {
			delete(out, c)
			continue
		}
		out[c] = p / total
	}
	return out
}
