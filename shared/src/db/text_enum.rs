//! Closed value sets stored as TEXT: `text_enum!` declares an enum whose variants each carry
//! their wire and column spelling, with serde, both databases' codecs, an OpenAPI string-enum
//! schema, `FromStr` and `Display`. An unknown value is a clear error everywhere: a serde error
//! naming the accepted values, a decode error naming the column's type, [`UnknownValue`] from
//! `parse`.
//!
//! ```
//! shared::text_enum! {
//!     /// Whether a thing is in use.
//!     pub enum Status { Active = "active", Archived = "archived" }
//! }
//! assert_eq!("archived".parse::<Status>().unwrap(), Status::Archived);
//! assert_eq!(Status::Active.as_str(), "active");
//! assert!(Status::parse("deleted").is_err());
//! ```

use std::fmt;

/// A string that is not one of a text enum's values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// The enum's Rust name, e.g. `AthleteStatus`.
    pub type_name: &'static str,
    pub value: String,
    /// The accepted spellings, in declaration order.
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} `{}`; expected one of {}",
            self.type_name,
            self.value,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownValue {}

/// The behaviour every `text_enum!` type shares, for code that is generic over them
/// (`Validator::choice_of`, filters).
pub trait TextEnum: Copy + Eq + 'static {
    /// Every variant, in declaration order.
    const ALL: &'static [Self];
    /// Every spelling, in declaration order.
    const NAMES: &'static [&'static str];
    fn as_str(self) -> &'static str;
    fn parse(s: &str) -> Result<Self, UnknownValue>;
}

/// Declares a closed value set stored as TEXT. See the module documentation.
#[macro_export]
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident $(as $alias:ident)? {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $crate::db::TextEnum for $name {
            const ALL: &'static [Self] = &[$($name::$variant),+];
            const NAMES: &'static [&'static str] = &[$($text),+];
            fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }
            fn parse(s: &str) -> ::std::result::Result<Self, $crate::db::UnknownValue> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err($crate::db::UnknownValue {
                        type_name: stringify!($name),
                        value: other.to_string(),
                        expected: <$name as $crate::db::TextEnum>::NAMES,
                    }),
                }
            }
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = <$name as $crate::db::TextEnum>::ALL;
            /// The value's wire and column spelling.
            pub fn as_str(self) -> &'static str {
                <$name as $crate::db::TextEnum>::as_str(self)
            }
            /// The variant spelled `s`, or an error naming the accepted values.
            pub fn parse(s: &str) -> ::std::result::Result<Self, $crate::db::UnknownValue> {
                <$name as $crate::db::TextEnum>::parse(s)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::db::UnknownValue;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                $name::parse(s)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::std::result::Result<Self, D::Error> {
                let s = <::std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                $name::parse(&s).map_err(|_| {
                    <D::Error as ::serde::de::Error>::unknown_variant(&s, <$name as $crate::db::TextEnum>::NAMES)
                })
            }
        }

        $crate::__text_enum_sql!($name);

        impl ::utoipa::PartialSchema for $name {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                $crate::db::text_enum_schema(<$name as $crate::db::TextEnum>::NAMES)
            }
        }
        impl ::utoipa::ToSchema for $name {
            // `as Alias` names the schema when two value sets share a Rust name.
            fn name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed($crate::__text_enum_schema_name!($name $(, $alias)?))
            }
        }
    };
}

/// A text enum's schema name: its alias (`enum SessionStatus as FootageSessionStatus`), else
/// its Rust name.
#[doc(hidden)]
#[macro_export]
macro_rules! __text_enum_schema_name {
    ($name:ident) => {
        stringify!($name)
    };
    ($name:ident, $alias:ident) => {
        stringify!($alias)
    };
}

/// The database codecs of a text enum: TEXT on both dialects; an unknown stored value fails
/// the row's decode with the type's name rather than being read as something else.
#[doc(hidden)]
#[macro_export]
macro_rules! __text_enum_sql {
    ($name:ident) => {
        impl ::sqlx::Type<::sqlx::Sqlite> for $name {
            fn type_info() -> ::sqlx::sqlite::SqliteTypeInfo {
                <String as ::sqlx::Type<::sqlx::Sqlite>>::type_info()
            }
            fn compatible(ty: &::sqlx::sqlite::SqliteTypeInfo) -> bool {
                <String as ::sqlx::Type<::sqlx::Sqlite>>::compatible(ty)
            }
        }
        impl<'q> ::sqlx::Encode<'q, ::sqlx::Sqlite> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut ::sqlx::sqlite::SqliteArgumentsBuffer,
            ) -> ::std::result::Result<::sqlx::encode::IsNull, ::sqlx::error::BoxDynError> {
                <&str as ::sqlx::Encode<::sqlx::Sqlite>>::encode(self.as_str(), buf)
            }
        }
        impl<'r> ::sqlx::Decode<'r, ::sqlx::Sqlite> for $name {
            fn decode(
                value: ::sqlx::sqlite::SqliteValueRef<'r>,
            ) -> ::std::result::Result<Self, ::sqlx::error::BoxDynError> {
                let s = <&str as ::sqlx::Decode<::sqlx::Sqlite>>::decode(value)?;
                Ok($name::parse(s)?)
            }
        }
        impl ::sqlx::Type<::sqlx::Postgres> for $name {
            fn type_info() -> ::sqlx::postgres::PgTypeInfo {
                <String as ::sqlx::Type<::sqlx::Postgres>>::type_info()
            }
            fn compatible(ty: &::sqlx::postgres::PgTypeInfo) -> bool {
                <String as ::sqlx::Type<::sqlx::Postgres>>::compatible(ty)
            }
        }
        impl<'q> ::sqlx::Encode<'q, ::sqlx::Postgres> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut ::sqlx::postgres::PgArgumentBuffer,
            ) -> ::std::result::Result<::sqlx::encode::IsNull, ::sqlx::error::BoxDynError> {
                <&str as ::sqlx::Encode<::sqlx::Postgres>>::encode(self.as_str(), buf)
            }
        }
        impl<'r> ::sqlx::Decode<'r, ::sqlx::Postgres> for $name {
            fn decode(
                value: ::sqlx::postgres::PgValueRef<'r>,
            ) -> ::std::result::Result<Self, ::sqlx::error::BoxDynError> {
                let s = <&str as ::sqlx::Decode<::sqlx::Postgres>>::decode(value)?;
                Ok($name::parse(s)?)
            }
        }
    };
}

/// The OpenAPI schema of a closed set of strings: a text enum's, or a request field's choices
/// that are checked by a `Validator` (so that the document lists what the check accepts).
pub fn text_enum_schema(
    names: &'static [&'static str],
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .enum_values(Some(names.iter().copied()))
        .into()
}

#[cfg(test)]
mod tests {
    use super::TextEnum;

    crate::text_enum! {
        /// A test set.
        pub enum Colour { Red = "red", DeepBlue = "deep_blue" }
    }

    #[test]
    fn round_trips_through_text_and_json() {
        for c in Colour::ALL {
            assert_eq!(Colour::parse(c.as_str()), Ok(*c));
            let json = serde_json::to_string(c).unwrap();
            assert_eq!(serde_json::from_str::<Colour>(&json).unwrap(), *c);
        }
        assert_eq!(
            serde_json::to_string(&Colour::DeepBlue).unwrap(),
            "\"deep_blue\""
        );
        assert_eq!(<Colour as TextEnum>::NAMES, &["red", "deep_blue"]);
    }

    #[test]
    fn unknown_values_are_clear_errors() {
        let e = Colour::parse("green").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown Colour `green`; expected one of red, deep_blue"
        );
        let e = serde_json::from_str::<Colour>("\"green\"").unwrap_err();
        assert!(e.to_string().contains("unknown variant `green`"), "{e}");
        assert!(e.to_string().contains("deep_blue"), "{e}");
    }

    #[test]
    fn schema_lists_the_values() {
        let schema = serde_json::to_value(<Colour as utoipa::PartialSchema>::schema()).unwrap();
        assert_eq!(schema["type"], "string");
        assert_eq!(schema["enum"], serde_json::json!(["red", "deep_blue"]));
    }

    #[tokio::test]
    async fn binds_and_decodes_on_sqlite_and_rejects_unknown_rows() {
        let pool = &sqlx::SqlitePool::connect("sqlite::memory:").await.unwrap();
        let back: Colour = sqlx::query_scalar("SELECT $1")
            .bind(Colour::DeepBlue)
            .fetch_one(pool)
            .await
            .unwrap();
        assert_eq!(back, Colour::DeepBlue);
        let bad = sqlx::query_scalar::<_, Colour>("SELECT 'green'")
            .fetch_one(pool)
            .await
            .unwrap_err();
        assert!(bad.to_string().contains("unknown Colour `green`"), "{bad}");
    }
}
