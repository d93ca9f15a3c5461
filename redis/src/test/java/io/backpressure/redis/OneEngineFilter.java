package io.backpressure.redis;

import java.util.Optional;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestDescriptor;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.launcher.PostDiscoveryFilter;

/**
 * Leaves out of the test plan a test of a class marked {@link OneEngine} that another engine
 * discovered: it is not run and not reported there, and the marked engine runs it. Registered with
 * the JUnit Platform launcher through {@code META-INF/services}.
 */
public final class OneEngineFilter implements PostDiscoveryFilter {

  @Override
  public FilterResult apply(TestDescriptor descriptor) {
    Optional<OneEngine> only = markOfItsClass(descriptor);
    if (only.isEmpty()) {
      return FilterResult.included("no engine named");
    }
    String engine = descriptor.getUniqueId().getEngineId().orElse("");
    return FilterResult.includedIf(
        engine.equals(only.get().value()),
        () -> "run by " + engine,
        () -> "left to " + only.get().value());
  }

  /** The mark of the test class that holds {@code descriptor}, if it has one. */
  private static Optional<OneEngine> markOfItsClass(TestDescriptor descriptor) {
    for (Optional<TestDescriptor> d = Optional.of(descriptor);
        d.isPresent();
        d = d.get().getParent()) {
      Optional<TestSource> source = d.get().getSource();
      if (source.isPresent() && source.get() instanceof ClassSource classSource) {
        return Optional.ofNullable(classSource.getJavaClass().getAnnotation(OneEngine.class));
      }
    }
    return Optional.empty();
  }
}
