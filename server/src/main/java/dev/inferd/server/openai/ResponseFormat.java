package dev.inferd.server.openai;

/** What shape the output must have: free text, any JSON object, or JSON valid against a schema. */
public sealed interface ResponseFormat {

    ResponseFormat TEXT = new Text();

    record Text() implements ResponseFormat {
    }

    record JsonObject() implements ResponseFormat {
    }

    /** @param schema the schema as a plain Java tree (maps, lists, strings, numbers, booleans) */
    record JsonSchema(String name, Object schema, boolean strict) implements ResponseFormat {
    }
}
