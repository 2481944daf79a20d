//! What a query struct reads, learned from its own `Deserialize` impl, so that the document's
//! query parameters are the struct's fields and cannot drift from them (`RouteDef::query_of`).
//!
//! serde's derived `deserialize` tells its deserializer the struct's field names
//! (`deserialize_struct(name, fields, visitor)`); a deserializer that records them and stops
//! learns the names as the wire spells them (after `rename_all`). Feeding the visitor a map of
//! one field then shows how that field reads its value: `deserialize_option` is an optional
//! field, `deserialize_enum` gives the variants, a string that only a UUID (or a timestamp)
//! satisfies gives the format. Deserializing a map of known-good values learns which fields
//! serde requires: its "missing field" error names them one at a time, in declaration order.
//!
//! `#[serde(flatten)]` makes serde ask for a map instead of a struct, so the field names are not
//! told: [`query_params`] refuses such a struct (pagination is `RouteDef::paginated`, not a
//! flattened field).

use super::{QueryKind, QueryParam};
use serde::de::{self, DeserializeOwned, IntoDeserializer, Visitor};
use std::cell::RefCell;
use std::fmt;

/// Why a probe stopped.
#[derive(Debug)]
enum Stop {
    /// The struct told its field names.
    Fields(&'static [&'static str]),
    /// serde found a required field absent.
    Missing(&'static str),
    /// Anything else: a refused value, or the probe's own stop.
    Other(String),
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Fields(fields) => write!(f, "fields {fields:?}"),
            Stop::Missing(field) => write!(f, "missing field `{field}`"),
            Stop::Other(why) => f.write_str(why),
        }
    }
}
impl std::error::Error for Stop {}
impl de::Error for Stop {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Stop::Other(msg.to_string())
    }
    fn missing_field(field: &'static str) -> Self {
        Stop::Missing(field)
    }
}

/// Learns the field names: records the list `deserialize_struct` is given, then stops.
struct Names;

impl<'de> de::Deserializer<'de> for Names {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop::Other("not a struct".into()))
    }
    fn deserialize_map<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop::Other(
            "asks for a map: a #[serde(flatten)] field hides the field names".into(),
        ))
    }
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        Err(Stop::Fields(fields))
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct enum identifier ignored_any
    }
}

/// How a field reads its value, as far as the probe saw.
#[derive(Clone, Copy, Debug, Default)]
struct Hint {
    read: Read,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Read {
    #[default]
    Unknown,
    Str,
    Integer,
    Number,
    Boolean,
    Enum(&'static [&'static str]),
}

/// A field's value that records how it is read, then stops.
struct Probe<'a>(&'a RefCell<Hint>);

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop::Other("probed".into()))
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_some(self)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Stop> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        variants: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        self.read(Read::Enum(variants))
    }
    fn deserialize_str<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Str)
    }
    fn deserialize_string<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Str)
    }
    fn deserialize_bool<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Boolean)
    }
    fn deserialize_i8<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_u8<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Integer)
    }
    fn deserialize_f32<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Number)
    }
    fn deserialize_f64<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        self.read(Read::Number)
    }
    serde::forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

impl Probe<'_> {
    fn read<T>(self, read: Read) -> Result<T, Stop> {
        self.0.borrow_mut().read = read;
        Err(Stop::Other("probed".into()))
    }
}

/// A value to feed a field: what a query string would carry.
#[derive(Clone, Copy, Debug)]
enum Fill {
    Str(&'static str),
    Integer,
    Number,
    Boolean,
    Variant(&'static str),
}

const UUID: &str = "0190f000-0000-7000-8000-000000000001";
const TIMESTAMP: &str = "2024-01-01T00:00:00Z";
const DATE: &str = "2024-01-01";
const TEXT: &str = "x";

impl<'de> de::Deserializer<'de> for Fill {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        match self {
            Fill::Str(s) | Fill::Variant(s) => v.visit_str(s),
            Fill::Integer => v.visit_i64(1),
            Fill::Number => v.visit_f64(1.0),
            Fill::Boolean => v.visit_bool(false),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_some(self)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        v: V,
    ) -> Result<V::Value, Stop> {
        v.visit_newtype_struct(self)
    }
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Stop> {
        match self {
            Fill::Str(s) | Fill::Variant(s) => {
                v.visit_enum(IntoDeserializer::<Stop>::into_deserializer(s))
            }
            _ => Err(Stop::Other("not a variant".into())),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A map of the given fields, each value a [`Probe`] (`probe`) or its fill.
struct Map<'a> {
    entries: Vec<(&'static str, Option<Fill>)>,
    at: usize,
    probe: &'a RefCell<Hint>,
}

impl<'de> de::MapAccess<'de> for Map<'_> {
    type Error = Stop;
    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.entries.get(self.at) {
            Some((k, _)) => seed
                .deserialize(IntoDeserializer::<Stop>::into_deserializer(*k))
                .map(Some),
            None => Ok(None),
        }
    }
    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        let fill = self.entries[self.at].1;
        self.at += 1;
        match fill {
            Some(f) => seed.deserialize(f),
            None => seed.deserialize(Probe(self.probe)),
        }
    }
}

/// A struct made of the map's entries.
struct Struct<'a>(Map<'a>);

impl<'de> de::Deserializer<'de> for Struct<'_> {
    type Error = Stop;
    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Stop> {
        v.visit_map(self.0)
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

fn parse<T: DeserializeOwned>(
    entries: Vec<(&'static str, Option<Fill>)>,
    probe: &RefCell<Hint>,
) -> Result<(), Stop> {
    T::deserialize(Struct(Map {
        entries,
        at: 0,
        probe,
    }))
    .map(drop)
}

/// Whether `field` takes `fill`: the value is read, and what stops the struct afterwards (if
/// anything) is another field's absence.
fn takes<T: DeserializeOwned>(field: &'static str, fill: Fill) -> bool {
    let unused = RefCell::default();
    match parse::<T>(vec![(field, Some(fill))], &unused) {
        Ok(()) => true,
        Err(Stop::Missing(other)) => other != field,
        Err(_) => false,
    }
}

/// The query parameters `T` reads, as the wire names them. Panics (at registry build, which
/// every test does) on a type that does not derive `Deserialize` as a plain struct.
pub fn query_params<T: DeserializeOwned>() -> Vec<QueryParam> {
    let type_name = std::any::type_name::<T>();
    let fields = match T::deserialize(Names) {
        Err(Stop::Fields(f)) => f,
        Err(other) => panic!("{type_name}: not a plain struct of query parameters ({other})"),
        Ok(_) => panic!("{type_name}: read no field names"),
    };
    let mut out = vec![];
    let mut fills = vec![];
    for &name in fields {
        let hint = RefCell::new(Hint::default());
        let _ = parse::<T>(vec![(name, None)], &hint);
        let hint = hint.into_inner();
        let (kind, fill) = match hint.read {
            Read::Integer => (QueryKind::Integer, Some(Fill::Integer)),
            Read::Number => (QueryKind::Number, Some(Fill::Number)),
            Read::Boolean => (QueryKind::Boolean, Some(Fill::Boolean)),
            Read::Enum(variants) => (
                QueryKind::Enum(variants),
                variants.first().map(|v| Fill::Variant(v)),
            ),
            Read::Str | Read::Unknown => {
                let text = takes::<T>(name, Fill::Str(TEXT));
                if text {
                    (QueryKind::Text, Some(Fill::Str(TEXT)))
                } else if takes::<T>(name, Fill::Str(UUID)) {
                    (QueryKind::Uuid, Some(Fill::Str(UUID)))
                } else if takes::<T>(name, Fill::Str(TIMESTAMP)) {
                    (QueryKind::DateTime, Some(Fill::Str(TIMESTAMP)))
                } else if takes::<T>(name, Fill::Str(DATE)) {
                    (QueryKind::Date, Some(Fill::Str(DATE)))
                } else {
                    (QueryKind::Text, None)
                }
            }
        };
        fills.push((name, fill));
        out.push(QueryParam {
            name,
            required: false,
            kind,
        });
    }
    // serde names the first absent required field; give it a value and ask again.
    let mut given = vec![];
    let unused = RefCell::default();
    for _ in 0..=fields.len() {
        match parse::<T>(given.clone(), &unused) {
            Err(Stop::Missing(field)) => {
                let Some(p) = out.iter_mut().find(|p| p.name == field) else {
                    break;
                };
                p.required = true;
                match fills.iter().find(|(n, _)| *n == field).and_then(|x| x.1) {
                    Some(fill) => given.push((field, Some(fill))),
                    // No value this probe can make: a later required field stays unlearned (the
                    // row marks it with `RouteDef::required_query`).
                    None => break,
                }
            }
            _ => break,
        }
    }
    out
}
