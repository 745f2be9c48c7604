package dynamo

// The dashboard's sign-in links and sessions live in the sessions table (regional; key pk only;
// TTL attribute expires), two kinds of items:
//
//	pk = "link#<hash>"     acct, created_ms, exp_ms, expires (TTL), and once used: used_by (the
//	                       hash of the session it started), used_ms
//	pk = "session#<hash>"  acct, created_ms, exp_ms (idle expiry), expires (TTL), link (the hash
//	                       of the link that started it)
//
// CreateLink is one PutItem under attribute_not_exists(pk), or the same item unused (a repeat
// of the put after a lost answer passes). StartSession is two conditional writes, each safe to
// repeat:
//
//  1. link item: SET used_by = S, used_ms under attribute_exists(pk) AND exp_ms > now AND
//     (attribute_not_exists(used_by) OR used_by = S). A repeat with the same session hash S (the
//     SDK retrying a call whose response was lost, or the caller retrying after an error in
//     step 2) passes; any other session is refused: the link is used once.
//  2. session item: PutItem under attribute_not_exists(pk) OR link = L, so a repeat rewrites
//     the same session and nothing else can overwrite one.
//
// A crash between 1 and 2 leaves a used link and no session: the sign-in fails and the user asks
// for a new link; nothing is signed in that should not be. The repeat of step 1 is accepted only
// while the link is unexpired (15 minutes), and only with S, the HMAC of a session id that never
// left the process that generated it.
//
// TouchSession is one UpdateItem that moves exp_ms forward under exp_ms > now AND exp_ms <=
// the new expiry, so a repeat passes and an ended or expired session is never revived.
//
// The day a key was last used is the attribute last_used ("YYYY-MM-DD") of its key item in the
// accounts table, set by MarkKeyUsed under attribute_exists(pk) AND (attribute_not_exists(last_used)
// OR last_used < day): at most one write per key per day, harmless to repeat.

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/sluice-api/sluice/internal/store"
)

const (
	attrUsedBy   = "used_by"
	attrUsedMS   = "used_ms"
	attrLink     = "link"
	attrLastUsed = "last_used"
)

// sessionsSpec is the layout of the sessions table.
func sessionsSpec(name string) tableSpec {
	return tableSpec{name: name, ttl: true, purpose: "sessions"}
}

func linkPK(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS("link#" + hash)}
}

func sessionPK(hash string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: attrS("session#" + hash)}
}

func (s *Store) sessionsTable() (*string, error) {
	if s.t.Sessions == "" {
		return nil, fmt.Errorf("no sessions table configured")
	}
	return aws.String(s.t.Sessions), nil
}

// CreateLink stores a new link; ErrExists when its hash exists.
func (s *Store) CreateLink(ctx context.Context, l store.SignInLink) error {
	table, err := s.sessionsTable()
	if err != nil {
		return fmt.Errorf("dynamo: create link: %w", err)
	}
	item := linkPK(l.Hash)
	setS(item, attrAcct, l.Account)
	item[attrCreatedMS] = attrN(ms(l.CreatedAt))
	item[attrExpMS] = attrN(ms(l.Expires))
	item[attrTTL] = attrN(ttlSeconds(ms(l.Expires)))
	// A repeat of this very put (the SDK retrying after a lost answer) meets the item it wrote:
	// the same account and times, still unused, so it passes and changes nothing. Anything else
	// under the hash is refused; a used link is never made usable again.
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: table,
		Item:      item,
		ConditionExpression: aws.String("attribute_not_exists(pk) OR " +
			"(#acct = :acct AND #created = :created AND #exp = :exp AND attribute_not_exists(#used))"),
		ExpressionAttributeNames: map[string]string{"#acct": attrAcct, "#created": attrCreatedMS, "#exp": attrExpMS, "#used": attrUsedBy},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":acct": attrS(l.Account), ":created": attrN(ms(l.CreatedAt)), ":exp": attrN(ms(l.Expires)),
		},
	})
	if conditionFailed(err) {
		return fmt.Errorf("dynamo: create link: %w", store.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("dynamo: create link: %w", err)
	}
	return nil
}

// Link returns the live link with hash (consistent read).
func (s *Store) Link(ctx context.Context, hash string, now time.Time) (store.SignInLink, error) {
	d, found, err := s.getSessionItem(ctx, linkPK(hash))
	if err != nil {
		return store.SignInLink{}, fmt.Errorf("dynamo: link: %w", err)
	}
	if !found || d.has(attrUsedBy) || d.num(attrExpMS) <= ms(now) {
		return store.SignInLink{}, fmt.Errorf("dynamo: link: %w", store.ErrNotFound)
	}
	l := store.SignInLink{Hash: hash, Account: d.str(attrAcct), CreatedAt: d.time(attrCreatedMS), Expires: d.time(attrExpMS)}
	if d.err != nil {
		return store.SignInLink{}, fmt.Errorf("dynamo: link: %w", d.err)
	}
	return l, nil
}

// getSessionItem reads one item of the sessions table with a consistent read.
func (s *Store) getSessionItem(ctx context.Context, key map[string]types.AttributeValue) (*decoder, bool, error) {
	table, err := s.sessionsTable()
	if err != nil {
		return nil, false, err
	}
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, false, err
	}
	if out.Item == nil {
		return nil, false, nil
	}
	return &decoder{item: out.Item}, true, nil
}

// StartSession uses the link up for sess and stores sess (see the comment at the top of this
// file for why both writes are safe to repeat).
func (s *Store) StartSession(ctx context.Context, linkHash string, sess store.Session, now time.Time) (store.Session, error) {
	table, err := s.sessionsTable()
	if err != nil {
		return store.Session{}, fmt.Errorf("dynamo: start session: %w", err)
	}
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                table,
		Key:                      linkPK(linkHash),
		UpdateExpression:         aws.String("SET #used = :s, #usedms = :now"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND #exp > :now AND (attribute_not_exists(#used) OR #used = :s)"),
		ExpressionAttributeNames: map[string]string{"#used": attrUsedBy, "#usedms": attrUsedMS, "#exp": attrExpMS},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":s": attrS(sess.Hash), ":now": attrN(ms(now)),
		},
		ReturnValues: types.ReturnValueAllNew,
	})
	if conditionFailed(err) {
		return store.Session{}, fmt.Errorf("dynamo: start session: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("dynamo: start session: use link: %w", err)
	}
	d := decoder{item: out.Attributes}
	sess.Account = d.str(attrAcct)
	if d.err != nil {
		return store.Session{}, fmt.Errorf("dynamo: start session: %w", d.err)
	}
	item := sessionPK(sess.Hash)
	setS(item, attrAcct, sess.Account)
	setS(item, attrLink, linkHash)
	item[attrCreatedMS] = attrN(ms(sess.CreatedAt))
	item[attrExpMS] = attrN(ms(sess.Expires))
	item[attrTTL] = attrN(ttlSeconds(ms(sess.Expires)))
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                 table,
		Item:                      item,
		ConditionExpression:       aws.String("attribute_not_exists(pk) OR #link = :link"),
		ExpressionAttributeNames:  map[string]string{"#link": attrLink},
		ExpressionAttributeValues: map[string]types.AttributeValue{":link": attrS(linkHash)},
	})
	if conditionFailed(err) {
		// A session with this hash that another link started: never overwrite it.
		return store.Session{}, fmt.Errorf("dynamo: start session: %w", store.ErrExists)
	}
	if err != nil {
		return store.Session{}, fmt.Errorf("dynamo: start session: store session: %w", err)
	}
	sess.CreatedAt, sess.Expires = fromMS(ms(sess.CreatedAt)), fromMS(ms(sess.Expires))
	return sess, nil
}

// Session returns the live session with hash (consistent read).
func (s *Store) Session(ctx context.Context, hash string, now time.Time) (store.Session, error) {
	d, found, err := s.getSessionItem(ctx, sessionPK(hash))
	if err != nil {
		return store.Session{}, fmt.Errorf("dynamo: session: %w", err)
	}
	if !found || d.num(attrExpMS) <= ms(now) {
		return store.Session{}, fmt.Errorf("dynamo: session: %w", store.ErrNotFound)
	}
	sess := store.Session{Hash: hash, Account: d.str(attrAcct), CreatedAt: d.time(attrCreatedMS), Expires: d.time(attrExpMS)}
	if d.err != nil {
		return store.Session{}, fmt.Errorf("dynamo: session: %w", d.err)
	}
	return sess, nil
}

// TouchSession moves a live session's expiry forward to expires.
func (s *Store) TouchSession(ctx context.Context, hash string, expires, now time.Time) error {
	table, err := s.sessionsTable()
	if err != nil {
		return fmt.Errorf("dynamo: touch session: %w", err)
	}
	_, err = s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                table,
		Key:                      sessionPK(hash),
		UpdateExpression:         aws.String("SET #exp = :e, #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_exists(pk) AND #exp > :now AND #exp <= :e"),
		ExpressionAttributeNames: map[string]string{"#exp": attrExpMS, "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":e": attrN(ms(expires)), ":ttl": attrN(ttlSeconds(ms(expires))), ":now": attrN(ms(now)),
		},
	})
	if err == nil {
		return nil
	}
	if !conditionFailed(err) {
		return fmt.Errorf("dynamo: touch session: %w", err)
	}
	// Refused: absent, expired, or live with a later expiry already (which is no error).
	if _, err := s.Session(ctx, hash, now); err != nil {
		return fmt.Errorf("dynamo: touch session: %w", err)
	}
	return nil
}

// EndSession deletes the session item.
func (s *Store) EndSession(ctx context.Context, hash string) error {
	table, err := s.sessionsTable()
	if err != nil {
		return fmt.Errorf("dynamo: end session: %w", err)
	}
	if _, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: table, Key: sessionPK(hash)}); err != nil {
		return fmt.Errorf("dynamo: end session: %w", err)
	}
	return nil
}

// MarkKeyUsed sets the key item's last_used to day unless it holds that day or a later one.
func (s *Store) MarkKeyUsed(ctx context.Context, hash, day string) error {
	_, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 aws.String(s.t.Accounts),
		Key:                       keyPK(hash),
		UpdateExpression:          aws.String("SET #lu = :d"),
		ConditionExpression:       aws.String("attribute_exists(pk) AND (attribute_not_exists(#lu) OR #lu < :d)"),
		ExpressionAttributeNames:  map[string]string{"#lu": attrLastUsed},
		ExpressionAttributeValues: map[string]types.AttributeValue{":d": attrS(day)},
	})
	if err != nil && !conditionFailed(err) {
		return fmt.Errorf("dynamo: mark key used: %w", err)
	}
	return nil
}
