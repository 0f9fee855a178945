//! Strict decoding of a record's fields: every unknown or misspelled field is named.

use super::*;

/// Deserialises a kind's fields, naming the field whose value does not fit.
pub(super) fn parse<T: DeserializeOwned>(
    kind: RecordKind,
    fields: &Map<String, Value>,
) -> Result<T, RecordRefusal> {
    let failed = Cell::new(None);
    let access = NamedFields {
        entries: fields.iter(),
        pending: None,
        failed: &failed,
    };
    T::deserialize(FieldsDeserializer(access)).map_err(|e| RecordRefusal::InvalidField {
        kind,
        field: failed.get().unwrap_or("(record)").to_owned(),
        problem: format!("is invalid: {e}"),
    })
}

pub(super) struct NamedFields<'a> {
    entries: serde_json::map::Iter<'a>,
    pending: Option<(&'a str, &'a Value)>,
    failed: &'a Cell<Option<&'a str>>,
}

impl<'a> MapAccess<'a> for NamedFields<'a> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.pending = Some((key.as_str(), value));
        let key: de::value::StrDeserializer<'_, Self::Error> = key.as_str().into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        let (key, value) = self
            .pending
            .take()
            .expect("serde asks for a value after its key");
        seed.deserialize(value)
            .inspect_err(|_| self.failed.set(Some(key)))
    }
}

pub(super) struct FieldsDeserializer<'a>(NamedFields<'a>);

impl<'de> de::Deserializer<'de> for FieldsDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(self.0)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}
