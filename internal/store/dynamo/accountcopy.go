package dynamo

// Key items carry a copy of their account's settings, so that the authorizer reads one item per
// request (KeyAccount). The account item has a version, ver, that every UpdateAccount raises;
// each key's copy records the version it copies (a_ver). UpdateAccount writes the account, then
// the copy of every key of the account (listed with consistent reads, as RotateKey lists them)
// under a_ver < the new version, and returns only when all are written. A key being added
// meanwhile is caught by AddKey: it writes the key with the settings it read, reads the account
// again, and when the version moved it revokes the key and answers ErrAccountChanged (the
// caller makes another), so no key ever authenticates with settings older than the account's
// last completed update. Key items written before the copy existed have no a_ver: KeyAccount
// reads their account item too (two reads) until CopyAccountsToKeys has filled them in.
//
// The dashboard writes key items whole (it creates keys), so it could write any copy. A copy is
// therefore trusted only when sealed: a_mac is an HMAC-SHA256, under a copy key the dashboard's
// role cannot read (WithCopyKey), of the account id, the version and every copied setting. The
// stores that write accounts (keyctl) seal each version and keep the seal on the account item
// (copy_mac); AddKey copies it from there as it is, so the dashboard makes sealed keys without
// the key. KeyAccount trusts a copy only under a valid seal; any other copy, a forged one
// included, costs one more read, of the account item, which the dashboard cannot write.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
	"github.com/sluice-api/sluice/internal/store/dynamo/layout"
)

// attrVersion is the account item's version of its settings.
const attrVersion = "ver"

// attrCopyMAC is the account item's seal of its settings at its version (seal), which AddKey
// copies onto new keys as layout.CopyMAC.
const attrCopyMAC = "copy_mac"

// seal is the MAC of a's settings at version ver under key, hex; "" without a key. Every field
// is length-prefixed, so no two copies share an encoding.
func seal(key []byte, a store.Account, ver int64) string {
	if len(key) == 0 {
		return ""
	}
	m := hmac.New(sha256.New, key)
	for _, f := range []string{
		"sluice account copy v1", a.ID, strconv.FormatInt(ver, 10), a.Region, a.Tier,
		strconv.FormatInt(a.RateLimit, 10), strconv.FormatInt(a.Allowance, 10), strconv.FormatBool(a.Disabled),
		a.UsagePlanKey, strconv.FormatInt(ms(a.CreatedAt), 10),
	} {
		m.Write([]byte(strconv.Itoa(len(f)) + ":" + f))
	}
	return hex.EncodeToString(m.Sum(nil))
}

// sealed reports whether mac is the seal of a at version ver under key (never without a key).
func sealed(key []byte, a store.Account, ver int64, mac string) bool {
	want := seal(key, a, ver)
	return want != "" && hmac.Equal([]byte(want), []byte(mac))
}

// macOf is the seal an account item or a key item carries ("" for none).
func macOf(item map[string]types.AttributeValue, name string) string {
	if v, ok := item[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

// decodeAccount reads an account item: the account and its version (0 before versions).
func decodeAccount(id string, item map[string]types.AttributeValue) (store.Account, int64, error) {
	d := decoder{item: item}
	a := store.Account{
		ID:           id,
		Region:       d.str("region"),
		Tier:         d.str("tier"),
		RateLimit:    d.num("rate_limit"),
		Allowance:    d.num("allowance"),
		Disabled:     d.boolean("disabled"),
		UsagePlanKey: d.str("usage_plan_key"),
		CreatedAt:    d.time(attrCreatedMS),
	}
	ver := d.num(attrVersion)
	if d.err != nil {
		return store.Account{}, 0, d.err
	}
	return a, ver, nil
}

// accountCopy is a key item's copy of a at version ver, sealed by mac ("" for no seal).
func accountCopy(a store.Account, ver int64, mac string) map[string]types.AttributeValue {
	item := map[string]types.AttributeValue{
		layout.CopyRateLimit: attrN(a.RateLimit),
		layout.CopyAllowance: attrN(a.Allowance),
		layout.CopyDisabled:  attrBool(a.Disabled),
		layout.CopyCreatedMS: attrN(ms(a.CreatedAt)),
		layout.CopyVersion:   attrN(ver),
	}
	setS(item, layout.CopyRegion, a.Region)
	setS(item, layout.CopyTier, a.Tier)
	setS(item, layout.CopyUsagePlanKey, a.UsagePlanKey)
	setS(item, layout.CopyMAC, mac)
	return item
}

// copiedAccount is the account a key item copies; ok is false for a key item without a copy or
// whose copy is not sealed under key (never trusted without a key).
func copiedAccount(key []byte, item map[string]types.AttributeValue) (a store.Account, ok bool, err error) {
	if _, has := item[layout.CopyVersion]; !has || len(key) == 0 {
		return store.Account{}, false, nil
	}
	d := decoder{item: item}
	a = store.Account{
		ID:           d.str(attrAcct),
		Region:       d.str(layout.CopyRegion),
		Tier:         d.str(layout.CopyTier),
		RateLimit:    d.num(layout.CopyRateLimit),
		Allowance:    d.num(layout.CopyAllowance),
		Disabled:     d.boolean(layout.CopyDisabled),
		UsagePlanKey: d.str(layout.CopyUsagePlanKey),
		CreatedAt:    d.time(layout.CopyCreatedMS),
	}
	ver := d.num(layout.CopyVersion)
	if d.err != nil {
		return store.Account{}, false, d.err
	}
	return a, sealed(key, a, ver, macOf(item, layout.CopyMAC)), nil
}

// KeyAccount returns the key with hash and its account: one consistent read of the key item,
// which copies the account's settings; a key item without a sealed copy (written before copies
// or seals, by a store without the copy key, or forged) reads the account item too.
func (s *Store) KeyAccount(ctx context.Context, hash string) (store.Key, store.Account, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            keyPK(hash),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Key{}, store.Account{}, fmt.Errorf("dynamo: key account: %w", err)
	}
	if out.Item == nil {
		return store.Key{}, store.Account{}, fmt.Errorf("dynamo: key account: %w", store.ErrNotFound)
	}
	k, err := decodeKey(out.Item)
	if err != nil {
		return store.Key{}, store.Account{}, fmt.Errorf("dynamo: key account: %w", err)
	}
	a, ok, err := copiedAccount(s.copyKey, out.Item)
	if err != nil {
		return store.Key{}, store.Account{}, fmt.Errorf("dynamo: key account: %w", err)
	}
	if !ok {
		if a, err = s.GetAccount(ctx, k.Account); err != nil {
			return store.Key{}, store.Account{}, err
		}
	}
	return k, a, nil
}

// copyToKey writes a's settings at version ver, sealed by mac, onto the key item of hash, unless
// the item is gone, belongs to another account or copies ver or a newer version already.
func (s *Store) copyToKey(ctx context.Context, hash string, a store.Account, ver int64, mac string) error {
	names := map[string]string{"#acct": attrAcct, "#ver": layout.CopyVersion}
	values := map[string]types.AttributeValue{":acct": attrS(a.ID), ":ver": attrN(ver)}
	var set, remove string
	i := 0
	for _, name := range layout.AccountCopy() {
		n := fmt.Sprintf("#c%d", i)
		names[n] = name
		i++
		v, ok := accountCopy(a, ver, mac)[name]
		if !ok { // an empty string: no attribute
			remove += ", " + n
			continue
		}
		values[":"+n[1:]] = v
		set += ", " + n + " = :" + n[1:]
	}
	expr := "SET " + set[2:]
	if remove != "" {
		expr += " REMOVE " + remove[2:]
	}
	// A copy of this very version is written again when it lacks this seal (a migration that
	// seals, or a new copy key).
	newer := "attribute_not_exists(#ver) OR #ver < :ver"
	if mac != "" {
		names["#mac"], values[":mac"] = layout.CopyMAC, attrS(mac)
		newer += " OR (#ver = :ver AND (attribute_not_exists(#mac) OR #mac <> :mac))"
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       keyPK(hash),
		UpdateExpression:          aws.String(expr),
		ConditionExpression:       aws.String("attribute_exists(pk) AND #acct = :acct AND (" + newer + ")"),
		ExpressionAttributeNames:  names,
		ExpressionAttributeValues: values,
	})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("copy account %q to a key: %w", a.ID, err)
	}
	return nil
}

// copyToKeys writes a's settings at version ver, sealed by mac, onto every key of a.
func (s *Store) copyToKeys(ctx context.Context, a store.Account, ver int64, mac string) error {
	keys, err := s.listKeys(ctx, a.ID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.copyToKey(ctx, k.Hash, a, ver, mac); err != nil {
			return err
		}
	}
	return nil
}

// readAccount reads the account item of id with a consistent read: the account, its version
// and its seal.
func (s *Store) readAccount(ctx context.Context, id string) (store.Account, int64, string, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.t.Accounts),
		Key:            accountPK(id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return store.Account{}, 0, "", fmt.Errorf("read account %q: %w", id, err)
	}
	if out.Item == nil {
		return store.Account{}, 0, "", fmt.Errorf("account %q: %w", id, store.ErrNotFound)
	}
	a, ver, err := decodeAccount(id, out.Item)
	return a, ver, macOf(out.Item, attrCopyMAC), err
}

// sealAccount seals a at version ver on its account item, unless the item moved on to another
// version meanwhile (whose writer seals it), and returns the seal; "" for a store without the
// copy key, which seals nothing.
func (s *Store) sealAccount(ctx context.Context, a store.Account, ver int64) (string, error) {
	mac := seal(s.copyKey, a, ver)
	if mac == "" {
		return "", nil
	}
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       accountPK(a.ID),
		UpdateExpression:          aws.String("SET #mac = :mac"),
		ConditionExpression:       aws.String("#ver = :ver"),
		ExpressionAttributeNames:  map[string]string{"#mac": attrCopyMAC, "#ver": attrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":mac": attrS(mac), ":ver": attrN(ver)},
	})
	if err != nil && !conditionFailed(err) {
		return "", fmt.Errorf("seal account %q: %w", a.ID, err)
	}
	return mac, nil
}

// CopyAccountsToKeys fills in the account copy of every key item that has none or an older one:
// the migration of a deployment whose key items were written before the copies existed (see
// docs/aws.md). With the copy key it also seals every account whose seal is missing or not its
// own (a new copy key), and puts the seal on the copies. It scans the accounts table for account items and copies each to its keys;
// safe to run again and while the service runs. It returns the number of accounts it copied.
func (s *Store) CopyAccountsToKeys(ctx context.Context) (int, error) {
	p := dynamodb.NewScanPaginator(s.db, &dynamodb.ScanInput{
		TableName:                 aws.String(s.t.Accounts),
		FilterExpression:          aws.String("#k = :account"),
		ProjectionExpression:      aws.String("id"),
		ExpressionAttributeNames:  map[string]string{"#k": attrKind},
		ExpressionAttributeValues: map[string]types.AttributeValue{":account": attrS(kindAccount)},
	})
	n := 0
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("dynamo: copy accounts to keys: %w", err)
		}
		for _, item := range out.Items {
			d := decoder{item: item}
			id := d.str("id")
			if d.err != nil {
				return n, fmt.Errorf("dynamo: copy accounts to keys: %w", d.err)
			}
			a, ver, mac, err := s.readAccount(ctx, id)
			if errors.Is(err, store.ErrNotFound) {
				continue
			}
			if err != nil {
				return n, fmt.Errorf("dynamo: copy accounts to keys: %w", err)
			}
			if len(s.copyKey) > 0 && !sealed(s.copyKey, a, ver, mac) {
				if mac, err = s.sealAccount(ctx, a, ver); err != nil {
					return n, fmt.Errorf("dynamo: copy accounts to keys: %w", err)
				}
			}
			if err := s.copyToKeys(ctx, a, ver, mac); err != nil {
				return n, fmt.Errorf("dynamo: copy accounts to keys: %w", err)
			}
			n++
		}
	}
	return n, nil
}
