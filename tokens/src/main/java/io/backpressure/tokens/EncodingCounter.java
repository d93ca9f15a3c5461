package io.backpressure.tokens;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingRegistry;
import com.knuddels.jtokkit.api.EncodingType;
import java.util.EnumMap;
import java.util.Map;

/** A {@link TokenCounter} over one jtokkit encoding. Thread-safe (jtokkit encodings are). */
final class EncodingCounter implements TokenCounter {

  /** Lazy: loading an encoding's ranks takes tens of milliseconds, so only used ones load. */
  private static final EncodingRegistry REGISTRY = Encodings.newLazyEncodingRegistry();

  private static final Map<EncodingType, EncodingCounter> COUNTERS =
      new EnumMap<>(EncodingType.class);

  private final Encoding encoding;

  private EncodingCounter(Encoding encoding) {
    this.encoding = encoding;
  }

  static synchronized EncodingCounter of(EncodingType type) {
    return COUNTERS.computeIfAbsent(type, t -> new EncodingCounter(REGISTRY.getEncoding(t)));
  }

  @Override
  public int count(String text) {
    return text == null || text.isEmpty() ? 0 : encoding.countTokensOrdinary(text);
  }

  @Override
  public String name() {
    return encoding.getName();
  }

  @Override
  public boolean exact() {
    return true;
  }
}
