package dev.inferd.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.inferd.engine.Fixtures;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The schemas of OpenAI's published OpenAPI document ({@code ../shared/reference/openapi.yaml}; tests skip
 * without it): stream events checked by their {@code type}, objects by a component's name.
 */
public final class PublishedSchemas {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    private final JsonNode document;
    private final Map<String, String> eventSchemaNames = new HashMap<>();
    private final Map<String, Schema> compiled = new HashMap<>();

    private PublishedSchemas(JsonNode document) {
        this.document = document;
        JsonNode schemas = document.get("components").get("schemas");
        JsonNode variants = schemas.get("ResponseStreamEvent").has("anyOf")
                ? schemas.get("ResponseStreamEvent").get("anyOf") : schemas.get("ResponseStreamEvent").get("oneOf");
        for (JsonNode ref : variants) {
            String name = ref.get("$ref").asText().substring("#/components/schemas/".length());
            JsonNode type = schemas.get(name).path("properties").path("type").path("enum");
            if (type.isArray() && !type.isEmpty()) eventSchemaNames.put(type.get(0).asText(), name);
        }
    }

    /** Read once for every test class of a test JVM: the document is 3 MB of YAML, its schemas large. */
    private static PublishedSchemas loaded;

    public static synchronized PublishedSchemas load() throws IOException {
        Path openapi = Fixtures.dir().getParent().resolve("reference/openapi.yaml");
        Assumptions.assumeTrue(Files.exists(openapi), "no " + openapi);
        if (loaded == null) loaded = new PublishedSchemas(new ObjectMapper(new YAMLFactory()).readTree(openapi.toFile()));
        return loaded;
    }

    /** What the published schema of a Responses stream event of this {@code type} finds wrong in it. */
    public synchronized List<String> checkEvent(String json) throws IOException {
        String type = JSON.readTree(json).path("type").asText();
        String name = eventSchemaNames.get(type);
        if (name == null) return List.of("'" + type + "' is not a published event type");
        return check(name, json);
    }

    /** What the component schema {@code name} finds wrong in {@code json}. */
    public synchronized List<String> check(String name, String json) {
        Schema schema = compiled.computeIfAbsent(name, this::schema);
        return schema.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }

    private Schema schema(String name) {
        ObjectNode root = JSON.createObjectNode();
        root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.set("components", document.get("components"));
        root.put("$ref", "#/components/schemas/" + name);
        return REGISTRY.getSchema(root.toString(), InputFormat.JSON);
    }
}
