// Package layout names the parts of Sluice's DynamoDB items that both the store (which writes
// them) and the CDK app (whose IAM policies are conditioned on them) must agree on: the partition
// key attribute, the item prefixes of the accounts table and the attributes the dashboard may
// update. One package, imported by both, so a rename cannot split them.
package layout

// PK is the partition key attribute of every table.
const PK = "pk"

// Prefixes of the accounts table's partition keys.
const (
	PrefixAccount = "account#" // account#<account id>: the account
	PrefixKey     = "key#"     // key#<hex HMAC of the key>: one API key
	PrefixKeyID   = "keyid#"   // keyid#<key id>: a key's id, pointing to its hash
)

// Attributes of the accounts table's items that IAM conditions name.
const (
	// KeyIDs is the string set of key ids on the account item: every key of the account is in it
	// before its key-id and key items are written.
	KeyIDs = "key_ids"
	// KeyID is a key item's id.
	KeyID = "key_id"
	// RevokedMS is the revocation time of a key item, in Unix milliseconds; absent while active.
	RevokedMS = "revoked_ms"
)

// AccountCopy are the attributes of a key item that copy its account's settings, so that the
// authorizer reads one item per request; CopyVersion is the account's version they copy.
func AccountCopy() []string {
	return []string{CopyRegion, CopyTier, CopyRateLimit, CopyAllowance, CopyDisabled, CopyUsagePlanKey, CopyCreatedMS, CopyVersion, CopyMAC}
}

// The key item's copies of its account's settings.
const (
	CopyRegion       = "a_region"
	CopyTier         = "a_tier"
	CopyRateLimit    = "a_rate_limit"
	CopyAllowance    = "a_allowance"
	CopyDisabled     = "a_disabled"
	CopyUsagePlanKey = "a_usage_plan_key"
	CopyCreatedMS    = "a_created_ms"
	CopyVersion      = "a_ver"
	// CopyMAC seals the copy: an HMAC, under a key the dashboard cannot read, of the account id,
	// the version and the settings (the account item's copy_mac, copied as it is).
	CopyMAC = "a_mac"
)

// Write is one kind of write a function makes to the accounts table: an action on items whose
// partition key starts with Prefix, naming only Attributes (nil: any). The CDK app turns each
// into one IAM statement; the store's tests check that its requests fit them.
type Write struct {
	Sid, Action, Prefix string
	Attributes          []string
}

// DashboardWrites are the dashboard's writes to the accounts table. One role serves every
// account, so IAM cannot check that a key belongs to the signed-in account (the code does); but
// it limits what each write can touch: an account item only in its set of key ids (AddKey), key
// and key-id items put whole (putKey), a key item updated only in its revocation (RevokeKey), a
// key-id item deleted (a reservation released). No write can change an account's allowance,
// limits or state. A key item put whole may carry any copy of account settings, but the
// authorizer trusts a copy only under a valid CopyMAC, which needs a key in a secret the
// dashboard's role cannot read; any other copy costs the authorizer a read of the account item,
// whose settings the dashboard cannot write. So a dashboard compromise still allows: adding,
// revoking and rotating keys of any account (working keys, with the account's own settings),
// reading every account's settings and usage, and putting onto a key item of an account a copy
// sealed for that same account at an earlier version, if it kept one from before a change (an
// operator who fears that rotates the copy key: docs/aws.md). It cannot raise an account's
// allowance or rate limit, nor enable a disabled account, beyond what it once saw sealed.
func DashboardWrites() []Write {
	return []Write{
		{"AccountKeyIDs", "dynamodb:UpdateItem", PrefixAccount, []string{PK, KeyIDs}},
		{"PutKey", "dynamodb:PutItem", PrefixKey, nil},
		{"RevokeKey", "dynamodb:UpdateItem", PrefixKey, []string{PK, RevokedMS, KeyID}},
		{"PutKeyID", "dynamodb:PutItem", PrefixKeyID, nil},
		{"DeleteKeyID", "dynamodb:DeleteItem", PrefixKeyID, nil},
	}
}
