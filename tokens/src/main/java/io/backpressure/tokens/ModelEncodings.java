package io.backpressure.tokens;

import com.knuddels.jtokkit.api.EncodingType;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Which tiktoken encoding an OpenAI model uses: the one place the model → encoding map lives.
 *
 * <p>The map is keyed by model-name prefix and the longest matching prefix wins, so {@code
 * gpt-4o-mini-2024-07-18} finds {@code gpt-4o} (o200k_base) before {@code gpt-4} (cl100k_base). A
 * fine-tuned model ({@code ft:gpt-4o-mini:org::id}) is looked up by its base model. The entries
 * follow tiktoken's own table ({@code tiktoken/model.py}):
 *
 * <table>
 *   <caption>prefixes and encodings</caption>
 *   <tr><th>encoding</th><th>model prefixes</th></tr>
 *   <tr><td>o200k_base</td><td>gpt-4o, chatgpt-4o, gpt-4.1, gpt-4.5, gpt-5, gpt-oss, o1, o3, o4</td></tr>
 *   <tr><td>cl100k_base</td><td>gpt-4, gpt-3.5, gpt-35 (Azure), text-embedding-3, text-embedding-ada-002,
 *       davinci-002, babbage-002</td></tr>
 *   <tr><td>p50k_base</td><td>text-davinci-002, text-davinci-003, code-davinci, code-cushman</td></tr>
 *   <tr><td>r50k_base</td><td>text-davinci-001, text-curie, text-babbage, text-ada, davinci, curie,
 *       babbage, ada</td></tr>
 * </table>
 *
 * <p>A model that matches no prefix (Anthropic's, a custom Azure deployment name) has no encoding
 * here; {@link TokenCounter#forModel} then falls back to a characters-per-token ratio. Stateless
 * and thread-safe.
 */
public final class ModelEncodings {

  private static final Map<String, EncodingType> BY_PREFIX =
      Map.ofEntries(
          Map.entry("gpt-4o", EncodingType.O200K_BASE),
          Map.entry("chatgpt-4o", EncodingType.O200K_BASE),
          Map.entry("gpt-4.1", EncodingType.O200K_BASE),
          Map.entry("gpt-4.5", EncodingType.O200K_BASE),
          Map.entry("gpt-5", EncodingType.O200K_BASE),
          Map.entry("gpt-oss", EncodingType.O200K_BASE),
          Map.entry("o1", EncodingType.O200K_BASE),
          Map.entry("o3", EncodingType.O200K_BASE),
          Map.entry("o4", EncodingType.O200K_BASE),
          Map.entry("gpt-4", EncodingType.CL100K_BASE),
          Map.entry("gpt-3.5", EncodingType.CL100K_BASE),
          Map.entry("gpt-35", EncodingType.CL100K_BASE),
          Map.entry("text-embedding-3", EncodingType.CL100K_BASE),
          Map.entry("text-embedding-ada-002", EncodingType.CL100K_BASE),
          Map.entry("davinci-002", EncodingType.CL100K_BASE),
          Map.entry("babbage-002", EncodingType.CL100K_BASE),
          Map.entry("text-davinci-002", EncodingType.P50K_BASE),
          Map.entry("text-davinci-003", EncodingType.P50K_BASE),
          Map.entry("code-davinci", EncodingType.P50K_BASE),
          Map.entry("code-cushman", EncodingType.P50K_BASE),
          Map.entry("text-davinci-001", EncodingType.R50K_BASE),
          Map.entry("text-curie", EncodingType.R50K_BASE),
          Map.entry("text-babbage", EncodingType.R50K_BASE),
          Map.entry("text-ada", EncodingType.R50K_BASE),
          Map.entry("davinci", EncodingType.R50K_BASE),
          Map.entry("curie", EncodingType.R50K_BASE),
          Map.entry("babbage", EncodingType.R50K_BASE),
          Map.entry("ada", EncodingType.R50K_BASE));

  private ModelEncodings() {}

  /**
   * The encoding of {@code model}, or empty when the model is not an OpenAI model this table knows.
   *
   * @param model the model name as sent in the request ({@code gpt-4o-mini}); case is ignored
   */
  public static Optional<EncodingType> forModel(String model) {
    if (model == null || model.isBlank()) {
      return Optional.empty();
    }
    String name = model.strip().toLowerCase(Locale.ROOT);
    if (name.startsWith("ft:")) {
      name = name.substring(3);
    }
    EncodingType best = null;
    int bestLength = -1;
    for (Map.Entry<String, EncodingType> entry : BY_PREFIX.entrySet()) {
      String prefix = entry.getKey();
      if (name.startsWith(prefix) && prefix.length() > bestLength) {
        best = entry.getValue();
        bestLength = prefix.length();
      }
    }
    return Optional.ofNullable(best);
  }
}
