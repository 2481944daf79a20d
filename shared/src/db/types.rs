//! Column types that read and write the same way on SQLite and PostgreSQL.
//!
//! sqlx binds a `Uuid` as a 16-byte BLOB on SQLite and writes `DateTime` in a format whose
//! precision varies, so text comparisons break. These newtypes pin one representation per
//! dialect: on SQLite ids are hyphenated TEXT and times are fixed-width RFC 3339 TEXT with
//! microseconds (so `<` on text is `<` on time); on PostgreSQL they are native UUID and
//! TIMESTAMPTZ. Every row struct uses them instead of the raw types.

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
use sqlx::sqlite::{SqliteArgumentsBuffer, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Postgres, Sqlite, Type};
use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// A row id: UUID v7, so ids sort by creation time.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Id(pub Uuid);

impl Id {
    pub fn new() -> Self {
        Id(Uuid::now_v7())
    }
    pub fn nil() -> Self {
        Id(Uuid::nil())
    }
}

impl Default for Id {
    fn default() -> Self {
        Id::new()
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.hyphenated().fmt(f)
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Id({})", self.0)
    }
}

impl FromStr for Id {
    type Err = uuid::Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Uuid::parse_str(s).map(Id)
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&self.0.hyphenated())
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Uuid::deserialize(d).map(Id)
    }
}

impl Type<Sqlite> for Id {
    fn type_info() -> SqliteTypeInfo {
        <String as Type<Sqlite>>::type_info()
    }
}
impl Encode<'_, Sqlite> for Id {
    fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
        <String as Encode<Sqlite>>::encode(self.to_string(), buf)
    }
}
impl<'r> Decode<'r, Sqlite> for Id {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let s = <&str as Decode<Sqlite>>::decode(value)?;
        Ok(Id(Uuid::parse_str(s)?))
    }
}
impl Type<Postgres> for Id {
    fn type_info() -> PgTypeInfo {
        <Uuid as Type<Postgres>>::type_info()
    }
}
impl Encode<'_, Postgres> for Id {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <Uuid as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}
impl<'r> Decode<'r, Postgres> for Id {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Id(<Uuid as Decode<Postgres>>::decode(value)?))
    }
}

impl utoipa::PartialSchema for Id {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Uuid,
            )))
            .into()
    }
}
impl utoipa::ToSchema for Id {}

/// A point in time, UTC, truncated to microseconds (PostgreSQL's precision) when created,
/// so a value read back equals the value written.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Ts(pub DateTime<Utc>);

const SQLITE_TS_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";

impl Ts {
    pub fn now() -> Self {
        Ts(Utc::now().trunc_subsecs(6))
    }
    pub fn from_datetime(t: DateTime<Utc>) -> Self {
        Ts(t.trunc_subsecs(6))
    }
    /// `self + d`, saturating at chrono's limits (never panics); request times are range-checked
    /// first (`shared::times`), so saturation is only a last guard.
    pub fn plus(self, d: chrono::Duration) -> Self {
        self.checked_plus(d)
            .unwrap_or(Ts(if d < chrono::Duration::zero() {
                DateTime::<Utc>::MIN_UTC
            } else {
                DateTime::<Utc>::MAX_UTC
            }))
    }
    /// `self - d`, saturating like [`Ts::plus`].
    pub fn minus(self, d: chrono::Duration) -> Self {
        self.checked_minus(d)
            .unwrap_or(Ts(if d < chrono::Duration::zero() {
                DateTime::<Utc>::MAX_UTC
            } else {
                DateTime::<Utc>::MIN_UTC
            }))
    }
    /// `self + d`, or `None` past chrono's range.
    pub fn checked_plus(self, d: chrono::Duration) -> Option<Self> {
        self.0.checked_add_signed(d).map(Ts)
    }
    /// `self - d`, or `None` past chrono's range.
    pub fn checked_minus(self, d: chrono::Duration) -> Option<Self> {
        self.0.checked_sub_signed(d).map(Ts)
    }
    /// RFC 3339 with milliseconds and a `Z`, the wire format.
    pub fn to_rfc3339(&self) -> String {
        self.0.to_rfc3339_opts(SecondsFormat::Millis, true)
    }
    pub fn unix_millis(&self) -> i64 {
        self.0.timestamp_millis()
    }
}

impl Serialize for Ts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.to_rfc3339())
    }
}

impl<'de> Deserialize<'de> for Ts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let t = DateTime::<chrono::FixedOffset>::deserialize(d)?;
        Ok(Ts::from_datetime(t.with_timezone(&Utc)))
    }
}

impl Type<Sqlite> for Ts {
    fn type_info() -> SqliteTypeInfo {
        <String as Type<Sqlite>>::type_info()
    }
}
impl Encode<'_, Sqlite> for Ts {
    fn encode_by_ref(&self, buf: &mut SqliteArgumentsBuffer) -> Result<IsNull, BoxDynError> {
        <String as Encode<Sqlite>>::encode(self.0.format(SQLITE_TS_FORMAT).to_string(), buf)
    }
}
impl<'r> Decode<'r, Sqlite> for Ts {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let s = <&str as Decode<Sqlite>>::decode(value)?;
        Ok(Ts(DateTime::parse_from_rfc3339(s)?.with_timezone(&Utc)))
    }
}
impl Type<Postgres> for Ts {
    fn type_info() -> PgTypeInfo {
        <DateTime<Utc> as Type<Postgres>>::type_info()
    }
}
impl Encode<'_, Postgres> for Ts {
    fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
        <DateTime<Utc> as Encode<Postgres>>::encode_by_ref(&self.0, buf)
    }
}
impl<'r> Decode<'r, Postgres> for Ts {
    fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
        Ok(Ts(<DateTime<Utc> as Decode<Postgres>>::decode(value)?))
    }
}

impl utoipa::PartialSchema for Ts {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::DateTime,
            )))
            .into()
    }
}
impl utoipa::ToSchema for Ts {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_text_order_matches_time_order() {
        let a = Ts::from_datetime("2026-01-01T00:00:00.5Z".parse().unwrap());
        let b = Ts::from_datetime("2026-01-01T00:00:00.123456Z".parse().unwrap());
        let fa = a.0.format(SQLITE_TS_FORMAT).to_string();
        let fb = b.0.format(SQLITE_TS_FORMAT).to_string();
        assert_eq!(fa.len(), fb.len());
        assert_eq!(a.cmp(&b), fa.cmp(&fb));
    }

    #[test]
    fn ts_arithmetic_saturates_instead_of_panicking() {
        let far = Ts(DateTime::<Utc>::MAX_UTC);
        assert_eq!(far.plus(chrono::Duration::days(28)), far);
        assert_eq!(far.checked_plus(chrono::Duration::days(28)), None);
        let early = Ts(DateTime::<Utc>::MIN_UTC);
        assert_eq!(early.minus(chrono::Duration::days(1)), early);
        assert_eq!(early.checked_minus(chrono::Duration::days(1)), None);
        assert_eq!(early.plus(-chrono::Duration::days(1)), early);
    }

    #[test]
    fn ts_truncates_to_microseconds() {
        let t = Ts::from_datetime("2026-01-01T00:00:00.123456789Z".parse().unwrap());
        assert_eq!(t.0.timestamp_subsec_nanos(), 123_456_000);
    }
}
