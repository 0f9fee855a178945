//! The OpenAPI 3.1 document of the HTTP API, generated from the registry's schemas: every
//! route with its parameters or body, its result and its errors.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::routes::{Method, Route, routes};
use crate::ops::Registry;

/// The components the document collects, deduplicated by name and content.
#[derive(Default)]
struct Components {
    schemas: BTreeMap<String, Value>,
}

impl Components {
    /// Registers `schema` under `name`, or under `<prefix>.<name>` when another schema
    /// already holds the name; returns the name it got.
    fn add(&mut self, prefix: &str, name: &str, schema: Value) -> String {
        match self.schemas.get(name) {
            None => {
                self.schemas.insert(name.to_owned(), schema);
                name.to_owned()
            }
            Some(existing) if *existing == schema => name.to_owned(),
            Some(_) => {
                let qualified = format!("{prefix}.{name}");
                self.schemas.insert(qualified.clone(), schema);
                qualified
            }
        }
    }

    /// Moves `schema`'s `$defs` into the components (a name taken by a different schema
    /// gets the operation's prefix) and points its references at them.
    fn hoist_defs(&mut self, prefix: &str, schema: &mut Value) {
        let object = schema
            .as_object_mut()
            .expect("registry schemas are objects");
        object.remove("$schema");
        let defs = match object.remove("$defs") {
            Some(Value::Object(defs)) => defs,
            _ => Map::new(),
        };
        let same = BTreeMap::new();
        let mut names = BTreeMap::new();
        for (name, def) in &defs {
            let mut def = def.clone();
            rewrite_refs(&mut def, &same);
            names.insert(name.clone(), self.add(prefix, name, def));
        }
        // A renamed def: every def of this schema that refers to it must say so.
        if names.iter().any(|(from, to)| from != to) {
            for (name, def) in &defs {
                let to = &names[name];
                if to != name {
                    let mut def = def.clone();
                    rewrite_refs(&mut def, &names);
                    self.schemas.insert(to.clone(), def);
                }
            }
        }
        rewrite_refs(schema, &names);
    }

    /// Registers a schema whose defs are hoisted under its title; returns a `$ref` to it.
    fn register(&mut self, prefix: &str, fallback: &str, schema: Value) -> Value {
        let title = schema
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or(fallback)
            .to_owned();
        let name = self.add(prefix, &title, schema);
        json!({ "$ref": format!("#/components/schemas/{name}") })
    }
}

/// Points `#/$defs/X` references at `#/components/schemas/<renamed X>`.
fn rewrite_refs(value: &mut Value, names: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(name) = target.strip_prefix("#/$defs/")
            {
                let name = names.get(name).map_or(name, String::as_str);
                *target = format!("#/components/schemas/{name}");
            }
            for v in map.values_mut() {
                rewrite_refs(v, names);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rewrite_refs(v, names)),
        _ => {}
    }
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    })
}

/// The error object every failure answers with (`{"error": {code, class, rule, message, fix}}`).
fn error_schema() -> Value {
    json!({
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "class", "rule", "message"],
                "properties": {
                    "code": {"type": "integer", "description": "The HTTP status."},
                    "class": {"type": "string", "enum": ["usage", "refused", "failed"]},
                    "rule": {"type": "string", "description": "The rule that refused, or the kind of failure."},
                    "message": {"type": "string"},
                    "fix": {"type": ["string", "null"], "description": "What would get past it."}
                }
            }
        }
    })
}

/// One route's operation object.
fn operation_object(
    route: &Route,
    summary: &str,
    request: &Value,
    result: Value,
    components: &mut Components,
) -> Value {
    let path_params = route.path_params();
    let properties = request
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required: Vec<&str> = request
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut parameters: Vec<Value> = path_params
        .iter()
        .map(|name| {
            let schema = properties
                .get(*name)
                .cloned()
                .unwrap_or_else(|| json!({"type": "string"}));
            let description = schema.get("description").cloned();
            let mut p = json!({"name": name, "in": "path", "required": true, "schema": schema});
            if let Some(d) = description {
                p["description"] = d;
            }
            p
        })
        .collect();
    let mut object = json!({
        "operationId": route.operation,
        "summary": summary,
    });
    match route.method {
        Method::Get => {
            for (name, schema) in &properties {
                if path_params.contains(&name.as_str()) {
                    continue;
                }
                let mut p = json!({
                    "name": name,
                    "in": "query",
                    "required": required.contains(&name.as_str()),
                    "schema": schema,
                });
                if let Some(d) = schema.get("description") {
                    p["description"] = d.clone();
                }
                if schema.get("type").is_some_and(|t| {
                    t == "array" || t.as_array().is_some_and(|a| a.contains(&json!("array")))
                }) {
                    p["style"] = json!("form");
                    p["explode"] = json!(true);
                }
                parameters.push(p);
            }
        }
        Method::Post => {
            // The body is the request without the fields the path fills.
            let mut body = request.clone();
            if let Some(props) = body.get_mut("properties").and_then(Value::as_object_mut) {
                for name in &path_params {
                    props.remove(*name);
                }
            }
            if let Some(req) = body.get_mut("required").and_then(Value::as_array_mut) {
                req.retain(|r| !r.as_str().is_some_and(|r| path_params.contains(&r)));
            }
            let body_required = body
                .get("required")
                .and_then(Value::as_array)
                .is_some_and(|r| !r.is_empty());
            if let Some(title) = body.get("title").and_then(Value::as_str)
                && !path_params.is_empty()
            {
                body["title"] = json!(format!("{title}Body"));
            }
            let reference = components.register(route.operation, "Request", body);
            object["requestBody"] = json!({
                "required": body_required,
                "content": {"application/json": {"schema": reference}}
            });
            object["security"] = json!([{"bearer": []}]);
        }
    }
    if !parameters.is_empty() {
        object["parameters"] = Value::Array(parameters);
    }
    let mut result = result;
    components.hoist_defs(route.operation, &mut result);
    let result = components.register(route.operation, "Result", result);
    let mut responses = json!({
        "200": {
            "description": "The operation's result.",
            "headers": {
                "X-Majordomus-Verdict": {
                    "description": "What the result means: pass, advisory, blocking or refused.",
                    "schema": {"type": "string", "enum": ["pass", "advisory", "blocking", "refused"]}
                }
            },
            "content": {"application/json": {"schema": result}}
        },
        "400": error_response("A usage error: the request is malformed or names nothing."),
        "409": error_response("A refusal: a rule said no; `fix` says what would satisfy it."),
        "500": error_response("A failure: I/O, git, unreadable state."),
    });
    if route.method == Method::Post {
        responses["401"] = error_response("No or a wrong bearer token.");
        responses["403"] = error_response("A cross-origin request, or a foreign Host.");
        responses["413"] = error_response("The body exceeds the size limit.");
    }
    object["responses"] = responses;
    object
}

/// The OpenAPI 3.1 document of `registry`'s routes: a pure function of the registry.
pub fn openapi(registry: &Registry) -> Value {
    let mut components = Components::default();
    components.schemas.insert("Error".into(), error_schema());
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for route in routes(registry) {
        let op = registry
            .get(route.operation)
            .expect("a route names a registered operation");
        let mut request = op.request_schema();
        components.hoist_defs(route.operation, &mut request);
        let object = operation_object(
            &route,
            op.summary,
            &request,
            op.result_schema(),
            &mut components,
        );
        let method = route.method.name().to_lowercase();
        paths
            .entry(route.path.clone())
            .or_default()
            .insert(method, object);
    }
    paths.entry(format!("{}/openapi.json", super::routes::API)).or_default().insert(
        "get".into(),
        json!({
            "operationId": "openapi",
            "summary": "This document.",
            "responses": {"200": {"description": "The OpenAPI document.", "content": {"application/json": {"schema": {"type": "object"}}}}}
        }),
    );
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "majordomus",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The HTTP surface of majordomus (docs/HTTP.md): every operation of the registry. Reads are GET with query parameters; writes are POST with a JSON body and need the bearer token `majordomus serve` prints, from the same origin.",
        },
        "paths": paths,
        "components": {
            "schemas": components.schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}
