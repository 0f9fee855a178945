//! An operation's JSON request from what HTTP carries: query parameters (typed by the
//! request schema: a repeated or array parameter becomes a list, numbers and booleans
//! are parsed), a JSON body, and the path's `{field}` segments.

use serde_json::{Map, Value};

/// The schema of `name` in `schema`'s properties, following `$ref`s into `$defs` and the
/// `anyOf: [T, null]` schemars writes for an optional `T`.
fn property<'a>(schema: &'a Value, name: &str) -> Option<&'a Value> {
    resolve(schema, schema.get("properties")?.get(name)?)
}

fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> Option<&'a Value> {
    for _ in 0..16 {
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            let name = target.strip_prefix("#/$defs/")?;
            schema = root.get("$defs")?.get(name)?;
        } else if let Some(variants) = schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
        {
            let not_null: Vec<&Value> = variants
                .iter()
                .filter(|v| v.get("type").and_then(Value::as_str) != Some("null"))
                .collect();
            match not_null.as_slice() {
                [one] => schema = one,
                _ => return Some(schema),
            }
        } else {
            return Some(schema);
        }
    }
    Some(schema)
}

/// The JSON types a schema allows (`"type": "x"` or `"type": ["x", "null"]`).
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// `text` as the scalar `schema` wants; as a string when it does not parse (the
/// operation's decoding then names what is wrong).
fn scalar(schema: Option<&Value>, text: &str) -> Value {
    let kinds = schema.map(types).unwrap_or_default();
    if kinds.contains(&"integer") {
        if let Ok(n) = text.parse::<i64>() {
            return Value::from(n);
        }
        if let Ok(n) = text.parse::<u64>() {
            return Value::from(n);
        }
    }
    if kinds.contains(&"number")
        && let Ok(n) = text.parse::<f64>()
        && let Some(n) = serde_json::Number::from_f64(n)
    {
        return Value::Number(n);
    }
    if kinds.contains(&"boolean") {
        match text {
            "true" | "1" | "" => return Value::Bool(true),
            "false" | "0" => return Value::Bool(false),
            _ => {}
        }
    }
    Value::String(text.to_owned())
}

/// The request object of query `pairs` for an operation with request `schema`.
pub fn from_query(schema: &Value, pairs: &[(String, String)]) -> Map<String, Value> {
    let mut out = Map::new();
    for (name, text) in pairs {
        let prop = property(schema, name);
        let is_array = prop.is_some_and(|p| types(p).contains(&"array"));
        if is_array {
            let items = prop
                .and_then(|p| p.get("items"))
                .and_then(|i| resolve(schema, i));
            let value = scalar(items, text);
            match out
                .entry(name.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
            {
                Value::Array(list) => list.push(value),
                other => *other = Value::Array(vec![value]),
            }
        } else {
            let value = scalar(prop, text);
            match out.get_mut(name) {
                // A scalar given twice: let the decoding say it wants one.
                Some(Value::Array(list)) => list.push(value),
                Some(previous) => *previous = Value::Array(vec![previous.take(), value]),
                None => {
                    out.insert(name.clone(), value);
                }
            }
        }
    }
    out
}

/// Path segments fill their fields (as strings), over whatever the body or query said.
pub fn with_path(mut request: Map<String, Value>, params: &[(&str, String)]) -> Value {
    for (name, value) in params {
        request.insert((*name).to_owned(), Value::String(value.clone()));
    }
    Value::Object(request)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "event": {"type": ["array", "null"], "items": {"type": "string"}},
                "limit": {"type": ["integer", "null"], "format": "uint"},
                "all": {"type": "boolean"},
                "since": {"type": ["string", "null"]},
                "kind": {"anyOf": [{"$ref": "#/$defs/Kind"}, {"type": "null"}]}
            },
            "$defs": {"Kind": {"type": "string", "enum": ["a", "b"]}}
        })
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn query_parameters_take_the_schemas_types() {
        let request = from_query(
            &schema(),
            &pairs(&[
                ("event", "decision.recorded"),
                ("limit", "5"),
                ("event", "question.asked"),
                ("all", "true"),
                ("since", "2026-11-30"),
                ("kind", "a"),
            ]),
        );
        assert_eq!(
            Value::Object(request),
            json!({
                "event": ["decision.recorded", "question.asked"],
                "limit": 5,
                "all": true,
                "since": "2026-11-30",
                "kind": "a"
            })
        );
    }

    #[test]
    fn what_does_not_fit_stays_text_for_the_decoder_to_name() {
        let request = from_query(
            &schema(),
            &pairs(&[
                ("limit", "many"),
                ("since", "a"),
                ("since", "b"),
                ("other", "x"),
            ]),
        );
        assert_eq!(
            Value::Object(request),
            json!({"limit": "many", "since": ["a", "b"], "other": "x"})
        );
    }
}
