package dev.inferd.engine.generate;

/**
 * What a loaded model says about itself.
 *
 * @param id the name clients use in {@code model}
 * @param ownedBy who produced the weights ("local" when the file does not say)
 * @param created Unix seconds (the file's modification time)
 * @param parameterCount total number of weights
 * @param quantization the file's dominant tensor type, e.g. Q8_0
 * @param contextLength the context this server runs the model with
 */
public record ModelDescription(String id, String ownedBy, long created, String architecture,
                               long parameterCount, String quantization, int contextLength) {
}
