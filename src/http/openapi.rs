//! The OpenAPI 3.1 document of the HTTP API, generated from the registry's schemas: every
//! route with its parameters or body, its result and its errors.
//!
//! One component per distinct type: every schema of the document comes from two schemars
//! generators shared by all its operations (requests as serde reads them, results as
//! serde writes them), which name each Rust type once. A type whose two views differ (a
//! field with a default is optional to send but always written back) keeps its result
//! view under its name and its request view as `<Name>Input`.

use std::collections::BTreeMap;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

use super::routes::{Method, Route, routes};
use crate::ops::{self, Operation, Registry};

/// Where the document keeps its schemas.
const COMPONENTS: &str = "#/components/schemas/";

/// A generator whose definitions are the document's components.
fn generator(settings: SchemaSettings) -> SchemaGenerator {
    settings
        .with(|s| {
            s.definitions_path = "/components/schemas".into();
            s.meta_schema = None;
        })
        .into_generator()
}

/// The component a `{"$ref": "#/components/schemas/X"}` names.
fn component_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix(COMPONENTS)
}

/// Points `#/components/schemas/X` references at their new names.
fn rename_refs(value: &mut Value, names: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(to) = target
                    .strip_prefix(COMPONENTS)
                    .and_then(|name| names.get(name))
            {
                *target = format!("{COMPONENTS}{to}");
            }
            for v in map.values_mut() {
                rename_refs(v, names);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rename_refs(v, names)),
        _ => {}
    }
}

/// The components of both views in one map: a request-side schema that differs from the
/// result-side schema of its name (directly, or through a schema it refers to) is renamed
/// `<Name>Input`. Returns the components and the renames of the request side.
fn merge(
    inputs: Map<String, Value>,
    outputs: Map<String, Value>,
) -> (BTreeMap<String, Value>, BTreeMap<String, String>) {
    let mut renames: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let mut changed = false;
        for (name, schema) in &inputs {
            let Some(output) = outputs.get(name) else {
                continue;
            };
            if renames.contains_key(name) {
                continue;
            }
            let mut mine = schema.clone();
            rename_refs(&mut mine, &renames);
            if mine != *output {
                renames.insert(name.clone(), format!("{name}Input"));
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let mut components: BTreeMap<String, Value> = outputs.into_iter().collect();
    for (name, mut schema) in inputs {
        rename_refs(&mut schema, &renames);
        let name = renames.get(&name).cloned().unwrap_or(name);
        match components.get(&name) {
            None => {
                components.insert(name, schema);
            }
            Some(existing) => assert_eq!(
                *existing, schema,
                "component {name}: two schemas under one name"
            ),
        }
    }
    (components, renames)
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

/// One route's operation object. `request` is the request's own schema (its
/// properties), `request_ref` how the document refers to it, `result` the result's
/// reference; a POST body without the fields the path fills goes into `bodies`.
fn operation_object(
    route: &Route,
    operation: &Operation,
    request: &Value,
    request_ref: Value,
    result: Value,
    bodies: &mut Map<String, Value>,
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
        "summary": operation.summary,
    });
    if operation.admin {
        object["description"] = json!(
            "An admin act: it changes how the repository is wired. It needs the bearer token \
             like every write, and is never offered to agents (MCP leaves it out)."
        );
        object["x-majordomus-admin"] = json!(true);
    } else if operation.human_act {
        object["description"] = json!(
            "A human act (the cockpit's review): it needs the bearer token like every write, \
             and is never offered to agents (MCP leaves it out)."
        );
        object["x-majordomus-human-act"] = json!(true);
    }
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
            let body_required = required.iter().any(|r| !path_params.contains(r));
            let reference = match component_name(&request_ref) {
                // The body is the request without the fields the path fills.
                Some(name) if !path_params.is_empty() => {
                    let mut body = request.clone();
                    if let Some(props) = body.get_mut("properties").and_then(Value::as_object_mut) {
                        for name in &path_params {
                            props.remove(*name);
                        }
                    }
                    if let Some(req) = body.get_mut("required").and_then(Value::as_array_mut) {
                        req.retain(|r| !r.as_str().is_some_and(|r| path_params.contains(&r)));
                    }
                    let body_name = format!("{name}Body");
                    bodies.insert(body_name.clone(), body);
                    json!({ "$ref": format!("{COMPONENTS}{body_name}") })
                }
                _ => request_ref,
            };
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
    let mut inputs = generator(ops::request_settings());
    let mut outputs = generator(ops::result_settings());
    let mut bodies = Map::new();
    let mut paths: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for route in routes(registry) {
        let op = registry
            .get(route.operation)
            .expect("a route names a registered operation");
        let request_ref = op.request_in(&mut inputs).to_value();
        let request = match component_name(&request_ref) {
            Some(name) => inputs
                .definitions()
                .get(name)
                .cloned()
                .expect("a referenced request schema is defined"),
            None => request_ref.clone(),
        };
        let result = op.result_in(&mut outputs).to_value();
        let object = operation_object(&route, op, &request, request_ref, result, &mut bodies);
        let method = route.method.name().to_lowercase();
        paths
            .entry(route.path.clone())
            .or_default()
            .insert(method, object);
    }
    let mut input_defs = inputs.take_definitions(true);
    input_defs.extend(bodies);
    let (mut components, renames) = merge(input_defs, outputs.take_definitions(true));
    // What the requests refer to (parameters, bodies) follows their renames.
    for object in paths.values_mut().flat_map(|methods| methods.values_mut()) {
        for key in ["parameters", "requestBody"] {
            if let Some(part) = object.get_mut(key) {
                rename_refs(part, &renames);
            }
        }
    }
    let taken = components.insert("Error".into(), error_schema());
    assert!(taken.is_none(), "a type named Error hides the error object");
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
            "schemas": components,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_component_is_one_type_under_its_own_name() {
        let document = openapi(&Registry::standard());
        let schemas = document["components"]["schemas"]
            .as_object()
            .expect("components");
        // schemars numbers a second type of a taken name (`Status2`): none may be left.
        for name in schemas.keys() {
            assert!(
                !name.ends_with(|c: char| c.is_ascii_digit()),
                "{name}: two types under one name"
            );
        }
        for name in [
            "RecordStatus",
            "KnowledgeStance",
            "AdvisorStance",
            "EpisodeOutcome",
            "ValidationOutcome",
            "KnowledgeProvenance",
            "ConclusionProvenance",
            "OpeningSnapshot",
            "AvailabilitySnapshot",
        ] {
            assert!(schemas.contains_key(name), "{name} has a component");
        }
        for shared in ["Status", "Stance", "Outcome", "Provenance", "Snapshot"] {
            assert!(!schemas.contains_key(shared), "{shared} names which type?");
        }
        // Every reference resolves to a component.
        let text = document.to_string();
        for reference in text.split("\"$ref\":\"").skip(1) {
            let target = reference.split('"').next().expect("a reference");
            let name = target
                .strip_prefix(COMPONENTS)
                .unwrap_or_else(|| panic!("{target}: not a component"));
            assert!(schemas.contains_key(name), "{target} dangles");
        }
    }
}
