package dev.inferd.engine.grammar;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;

import java.util.List;

/** networknt's JSON Schema validator (draft 2020-12, formats asserted): the check that does not share our code. */
final class IndependentValidator {
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));

    private final Schema schema;

    IndependentValidator(String schemaJson) {
        this.schema = REGISTRY.getSchema(schemaJson, InputFormat.JSON);
    }

    /** The validator's complaints about {@code json}; empty when it validates. */
    List<String> errors(String json) {
        return schema.validate(json, InputFormat.JSON).stream().map(Object::toString).toList();
    }
}
