-- SMS: phone verification through Twilio Verify, verified phones, and STOP/START opt-outs.

-- A verification this user started for this phone (one live row per user and phone; a new
-- start replaces it). `verify` only checks a code for a phone the user started within 10 min.
CREATE TABLE sms_verifications (
    user_id UUID NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    phone TEXT NOT NULL,
    started_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (user_id, phone)
);

-- A user's verified phone (E.164), one per user.
CREATE TABLE user_phones (
    user_id UUID PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    phone TEXT NOT NULL,
    verified_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX user_phones_phone ON user_phones (phone);

-- Numbers that texted STOP (or another opt-out keyword); START removes the row.
CREATE TABLE sms_opt_outs (
    phone TEXT PRIMARY KEY,
    keyword TEXT NOT NULL,
    opted_out_at TIMESTAMPTZ NOT NULL
);
