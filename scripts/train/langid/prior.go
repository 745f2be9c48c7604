package main

// priorOf is the log prior of a language (nats, 0 for the most written ones). Sluice's users
// write chat and business text, mostly in widely written languages; when a short text fits two
// close languages equally (Indonesian and Malay, Bokmål and Nynorsk, Hindi and Marathi, Turkish
// and Azerbaijani), the more widely written one is the better bet. The tiers follow the share of
// web content per language (W3Techs-style rankings), coarsely; a prior this small changes only
// answers the text leaves nearly tied.
func priorOf(lang string) float64 {
	switch lang {
	case "ar", "bg", "cs", "da", "de", "en", "es", "fa", "fi", "fr", "hi", "hr", "hu", "id", "it",
		"ja", "nb", "nl", "pl", "pt", "ro", "ru", "sk", "sr", "sv", "tr", "uk", "vi", "zh":
		return 0
	case "az", "be", "bs", "ca", "et", "kk", "lt", "lv", "mk", "ms", "sl", "sq", "ur":
		return -0.5
	}
	return -1
}
