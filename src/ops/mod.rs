//! The operation registry (SPEC §10): every capability is one operation — a dotted name,
//! a request type, a result type (both with JSON Schemas generated from the types), flags,
//! a one-line summary and one function `fn(&Ctx, Request) -> Result<Result, Error>`.
//! The CLI, MCP and HTTP surfaces are generated from this list; none holds logic.
//!
//! Adding an operation: a request type (`Deserialize + JsonSchema`), a function taking the
//! context and the request, a result type that implements [`Report`] (its verdict and a
//! readable text, written in the render layer above this one), and one line in
//! [`Registry::standard`].

mod standard;

use std::sync::Arc;

use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::Ctx;
use crate::error::{Error, UsageError};
pub use crate::model::Verdict;

/// What every operation result is: serialisable, with a schema, a verdict and a text.
pub trait Report: Serialize + JsonSchema {
    /// What the result means for whoever asked (default: nothing needs attention).
    fn verdict(&self) -> Verdict {
        Verdict::Pass
    }
    /// The result as a person reads it.
    fn text(&self) -> String;
    /// A remark beside the result (the CLI prints it on stderr).
    fn note(&self) -> Option<String> {
        None
    }
}

/// An operation's result through the registry: the JSON value, its text and its verdict.
#[derive(Debug, Clone)]
pub struct Invoked {
    pub value: serde_json::Value,
    pub text: String,
    pub note: Option<String>,
    pub verdict: Verdict,
}

type Invoke = dyn Fn(&Ctx, serde_json::Value) -> Result<Invoked, Error> + Send + Sync;

/// One registry entry.
#[derive(Clone)]
pub struct Operation {
    /// Dotted name, e.g. `decision.record`.
    pub name: &'static str,
    /// One line saying what it does.
    pub summary: &'static str,
    /// The CLI command that runs it (surface metadata), e.g. `question resolve`.
    pub cli: &'static str,
    /// It writes to the repository's memory.
    pub writes: bool,
    /// A human act (promote, reject): never offered to agents.
    pub human_act: bool,
    /// It changes how the repository is wired (`init`, `hooks install|uninstall`,
    /// `rules vendor update`): never offered to agents, so none can remove the push gate;
    /// over HTTP it needs the token like every write.
    pub admin: bool,
    /// An entry point git or an agent client calls (a hook), or the command that wires
    /// one (`setup`): not a capability to offer on MCP or HTTP.
    pub entry_point: bool,
    /// Running it twice with the same request changes nothing more than running it once
    /// (every read is; a write says so). MCP's `idempotentHint`.
    pub idempotent: bool,
    /// It removes or rewrites what is there rather than only adding. MCP's
    /// `destructiveHint`.
    pub destructive: bool,
    /// It reaches beyond this repository (advisors: other programs, remote models).
    /// MCP's `openWorldHint`.
    pub open_world: bool,
    /// Surface metadata: the MCP tool name, where SPEC spells it otherwise than
    /// `majordomus_` + the name with dots as underscores.
    pub mcp_name: Option<&'static str>,
    /// Surface metadata: the HTTP route path, where SPEC spells it otherwise than
    /// `/api/v1/` + the name with dots as slashes; `{field}` segments fill request fields.
    pub http_path: Option<&'static str>,
    request_schema: fn() -> serde_json::Value,
    result_schema: fn() -> serde_json::Value,
    request_in: fn(&mut SchemaGenerator) -> Schema,
    result_in: fn(&mut SchemaGenerator) -> Schema,
    invoke: Arc<Invoke>,
}

impl std::fmt::Debug for Operation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operation")
            .field("name", &self.name)
            .field("cli", &self.cli)
            .field("writes", &self.writes)
            .field("human_act", &self.human_act)
            .field("admin", &self.admin)
            .field("entry_point", &self.entry_point)
            .finish()
    }
}

/// How a request is read: serde's deserialising view (a field with a default may be left
/// out).
pub fn request_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12()
}

/// How a result is written: serde's serialising view, so a field serde skips when empty
/// (`skip_serializing_if`) is optional and every other field is required, as it is
/// always there (SPEC §10: a result always validates against its published schema).
pub fn result_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().for_serialize()
}

/// The JSON Schema of `T` under `settings`, as an object schema: a schema whose variants
/// are all objects (a tagged enum) says so at its root too, as MCP and OpenAPI want.
fn object_schema<T: JsonSchema>(settings: SchemaSettings) -> serde_json::Value {
    let mut schema = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>())
        .expect("schemas serialise");
    if let Some(root) = schema.as_object_mut()
        && !root.contains_key("type")
    {
        let variants = ["oneOf", "anyOf"]
            .iter()
            .find_map(|k| root.get(*k))
            .and_then(|v| v.as_array());
        let all_objects = variants.is_some_and(|vs| {
            vs.iter().all(|v| {
                v.get("type").and_then(|t| t.as_str()) == Some("object")
                    || v.get("$ref").is_some()
                    || v.get("allOf").is_some()
            })
        });
        if all_objects {
            root.insert("type".into(), "object".into());
        }
    }
    schema
}

fn request_schema_of<T: JsonSchema>() -> serde_json::Value {
    object_schema::<T>(request_settings())
}

fn result_schema_of<T: JsonSchema>() -> serde_json::Value {
    object_schema::<T>(result_settings())
}

/// `T`'s schema inside a document that holds many (its definitions kept by the
/// generator, one per distinct type).
fn subschema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Schema {
    generator.subschema_for::<T>()
}

/// JSON Schema's `integer` is a number with no fraction, `1.0` included; serde's integers
/// are not. Such numbers become integers before the request is decoded.
fn integral_numbers(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Number(n) if !n.is_i64() && !n.is_u64() => {
            if let Some(f) = n.as_f64()
                && f.fract() == 0.0
            {
                if f >= 0.0 && f < u64::MAX as f64 {
                    *value = serde_json::Value::from(f as u64);
                } else if f < 0.0 && f >= i64::MIN as f64 {
                    *value = serde_json::Value::from(f as i64);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(integral_numbers),
        serde_json::Value::Object(map) => map.values_mut().for_each(integral_numbers),
        _ => {}
    }
}

/// Builds a registry entry from the function that serves it; `Req` and `Res` (and so the
/// schemas) come from the function's type.
pub fn op<Req, Res>(
    name: &'static str,
    cli: &'static str,
    summary: &'static str,
    run: fn(&Ctx, Req) -> Result<Res, Error>,
) -> Operation
where
    Req: DeserializeOwned + JsonSchema + 'static,
    Res: Report + 'static,
{
    Operation {
        name,
        summary,
        cli,
        writes: false,
        human_act: false,
        admin: false,
        entry_point: false,
        idempotent: false,
        destructive: false,
        open_world: false,
        mcp_name: None,
        http_path: None,
        request_schema: request_schema_of::<Req>,
        result_schema: result_schema_of::<Res>,
        request_in: subschema_of::<Req>,
        result_in: subschema_of::<Res>,
        invoke: Arc::new(move |ctx, value| {
            // No arguments at all is an empty request.
            let mut value = match value {
                serde_json::Value::Null => serde_json::Value::Object(Default::default()),
                v => v,
            };
            integral_numbers(&mut value);
            let request: Req =
                serde_json::from_value(value).map_err(|e| UsageError::InvalidRequest {
                    operation: name.to_owned(),
                    message: e.to_string(),
                })?;
            let result = run(ctx, request)?;
            Ok(Invoked {
                value: serde_json::to_value(&result).expect("results serialise"),
                text: result.text(),
                note: result.note(),
                verdict: result.verdict(),
            })
        }),
    }
}

impl Operation {
    /// Marks the operation as writing to the memory.
    pub fn writes(mut self) -> Operation {
        self.writes = true;
        self
    }

    /// Marks the operation as a human act (it writes, and no agent surface offers it).
    pub fn human_act(mut self) -> Operation {
        self.writes = true;
        self.human_act = true;
        self
    }

    /// Marks the operation as an act on the repository's wiring (never offered to agents).
    pub fn admin(mut self) -> Operation {
        self.admin = true;
        self
    }

    /// Marks the operation as a hook entry point.
    pub fn entry_point(mut self) -> Operation {
        self.entry_point = true;
        self
    }

    /// Marks a write as idempotent: a second identical run changes nothing.
    pub fn idempotent(mut self) -> Operation {
        self.idempotent = true;
        self
    }

    /// Marks a write as destructive: it removes or rewrites what is there.
    pub fn destructive(mut self) -> Operation {
        self.destructive = true;
        self
    }

    /// Marks an operation that reaches beyond the repository (it runs advisors).
    pub fn open_world(mut self) -> Operation {
        self.open_world = true;
        self
    }

    /// Names the MCP tool (SPEC's spelling) instead of the derived `majordomus_<name>`.
    pub fn mcp(mut self, tool: &'static str) -> Operation {
        self.mcp_name = Some(tool);
        self
    }

    /// Names the HTTP route path (SPEC's spelling) instead of the derived
    /// `/api/v1/<name with dots as slashes>`.
    pub fn http(mut self, path: &'static str) -> Operation {
        self.http_path = Some(path);
        self
    }

    /// Runs the operation on a JSON request, as MCP and HTTP call it.
    pub fn invoke(&self, ctx: &Ctx, request: serde_json::Value) -> Result<Invoked, Error> {
        (self.invoke)(ctx, request)
    }

    /// The request's JSON Schema (an object schema).
    pub fn request_schema(&self) -> serde_json::Value {
        (self.request_schema)()
    }

    /// The result's JSON Schema (an object schema), as the result is written.
    pub fn result_schema(&self) -> serde_json::Value {
        (self.result_schema)()
    }

    /// The request's schema in `generator` (a generator of [`request_settings`]), which
    /// keeps one definition per distinct type across every schema it made: how a
    /// document of many operations (OpenAPI) names each type once.
    pub fn request_in(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.request_in)(generator)
    }

    /// The result's schema in `generator` (a generator of [`result_settings`]).
    pub fn result_in(&self, generator: &mut SchemaGenerator) -> Schema {
        (self.result_in)(generator)
    }

    /// The entry as `majordomus schema` prints it.
    pub fn describe(&self) -> OperationInfo {
        OperationInfo {
            name: self.name,
            summary: self.summary,
            cli: self.cli,
            writes: self.writes,
            human_act: self.human_act,
            admin: self.admin,
            entry_point: self.entry_point,
            request: self.request_schema(),
            result: self.result_schema(),
        }
    }
}

/// One operation as the machine-readable contract shows it.
#[derive(Debug, Clone, Serialize)]
pub struct OperationInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub cli: &'static str,
    pub writes: bool,
    pub human_act: bool,
    pub admin: bool,
    pub entry_point: bool,
    pub request: serde_json::Value,
    pub result: serde_json::Value,
}

/// Every operation, in a stable order.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    operations: Vec<Operation>,
}

impl Registry {
    /// Adds an operation; a second one with the same name replaces nothing and panics,
    /// because two capabilities under one name is a programming error.
    pub fn register(&mut self, operation: Operation) -> &mut Registry {
        assert!(
            self.get(operation.name).is_none(),
            "operation {} registered twice",
            operation.name
        );
        self.operations.push(operation);
        self
    }

    pub fn get(&self, name: &str) -> Option<&Operation> {
        self.operations.iter().find(|o| o.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Operation> {
        self.operations.iter()
    }

    /// Runs `name` on a JSON request.
    pub fn invoke(
        &self,
        ctx: &Ctx,
        name: &str,
        request: serde_json::Value,
    ) -> Result<Invoked, Error> {
        let operation = self.get(name).ok_or_else(|| UsageError::UnknownOperation {
            name: name.to_owned(),
        })?;
        operation.invoke(ctx, request)
    }
}
