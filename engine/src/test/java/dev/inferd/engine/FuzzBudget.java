package dev.inferd.engine;

import net.jqwik.api.lifecycle.AroundPropertyHook;
import net.jqwik.api.lifecycle.PropagationMode;
import net.jqwik.api.lifecycle.PropertyExecutionResult;
import net.jqwik.api.lifecycle.PropertyExecutor;
import net.jqwik.api.lifecycle.PropertyLifecycleContext;

/**
 * Scales the tries of a fuzzing property by the system property {@code inferd.fuzz.factor} (default
 * 1), so that {@code ./test} runs a short bounded budget and a longer run needs no code change:
 * {@code ./mvnw test -Dtest=*FuzzTest -Dsurefire.failIfNoSpecifiedTests=false -Dinferd.fuzz.factor=100}.
 */
public final class FuzzBudget implements AroundPropertyHook {

    /** Declared on a test class, the budget applies to each of its properties. */
    @Override
    public PropagationMode propagateTo() {
        return PropagationMode.ALL_DESCENDANTS;
    }

    @Override
    public PropertyExecutionResult aroundProperty(PropertyLifecycleContext context, PropertyExecutor property) {
        int factor = Integer.getInteger("inferd.fuzz.factor", 1);
        context.attributes().tries().ifPresent(tries -> context.attributes().setTries(Math.multiplyExact(tries, factor)));
        return property.execute();
    }
}
