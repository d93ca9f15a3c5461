package io.backpressure.temporal;

import io.temporal.activity.ActivityCancellationType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.Priority;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Async;
import io.temporal.workflow.CancellationScope;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The workflow implementations the tests run. */
final class Workflows {

  private Workflows() {}

  /**
   * Gated activities: deferrals do not count as failures worth a bound on attempts (the deferral
   * bound applies instead); an HTTP error is not retried, so its release is seen once.
   */
  static ActivityOptions options(int maximumAttempts) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setHeartbeatTimeout(Duration.ofSeconds(2))
        .setCancellationType(ActivityCancellationType.WAIT_CANCELLATION_COMPLETED)
        .setRetryOptions(
            RetryOptions.newBuilder()
                .setInitialInterval(Duration.ofMillis(100))
                .setMaximumAttempts(maximumAttempts)
                .setDoNotRetry(IOException.class.getName())
                .build())
        .build();
  }

  static ChatActivities activities() {
    return Workflow.newActivityStub(ChatActivities.class, options(0));
  }

  static String describe(ActivityFailure failure) {
    String type =
        failure.getCause() instanceof ApplicationFailure cause
            ? cause.getType()
            : failure.getCause().getClass().getSimpleName();
    return "failed:" + type + ":" + failure.getRetryState();
  }

  /**
   * One chat through {@code activities}, deferrals waited out by the explicit helper within {@code
   * maxWaitMillis}: its reply, or its failure as {@link #describe} gives it.
   */
  static String helper(ChatActivities activities, ChatInput input, long maxWaitMillis) {
    try {
      return Backpressure.run(Duration.ofMillis(maxWaitMillis), () -> activities.chat(input));
    } catch (ActivityFailure failure) {
      return describe(failure);
    }
  }

  /** One chat through {@code activities}, no backpressure code: its reply, or its failure. */
  static String plain(ChatActivities activities, ChatInput input) {
    try {
      return activities.chat(input);
    } catch (ActivityFailure failure) {
      return describe(failure);
    }
  }

  /** The explicit helper. */
  public static final class Helper implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return helper(activities(), input, maxWaitMillis);
    }
  }

  /** No backpressure code at all: for the transparent interceptor and the server-timed path. */
  public static final class Plain implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return plain(activities(), input);
    }
  }

  /** As {@link Plain}, with a retry policy of two attempts. */
  public static final class TwoAttempts implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      return plain(Workflow.newActivityStub(ChatActivities.class, options(2)), input);
    }
  }

  /**
   * Calls one after another until a call fails: {@code <calls that succeeded> ok; <failure>}, where
   * a {@link Backpressure#LIMIT_REACHED} failure adds the details a workflow reads from it, {@code
   * :<reason>:<reset instant, ms since the epoch>}.
   */
  public static final class UntilRefused implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      ChatActivities activities = activities();
      int succeeded = 0;
      while (true) {
        try {
          activities.chat(input);
          succeeded++;
        } catch (ActivityFailure failure) {
          String outcome = succeeded + " ok; " + describe(failure);
          if (failure.getCause() instanceof ApplicationFailure cause
              && Backpressure.LIMIT_REACHED.equals(cause.getType())) {
            outcome +=
                ":"
                    + cause.getDetails().get(0, String.class)
                    + ":"
                    + cause.getDetails().get(2, Long.class);
          }
          return outcome;
        }
      }
    }
  }

  /** Two calls started asynchronously, joined after both are scheduled. */
  public static final class TwoAsync implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      ChatActivities activities = activities();
      Promise<String> first = Async.function(activities::chat, input);
      Promise<String> second = Async.function(activities::chat, input);
      try {
        return first.get() + "," + second.get();
      } catch (ActivityFailure failure) {
        return describe(failure);
      }
    }
  }

  /** Starts the call, cancels it after a second, waits for the activity to acknowledge. */
  public static final class Cancelling implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      ChatActivities activities = activities();
      List<Promise<String>> call = new ArrayList<>();
      CancellationScope scope =
          Workflow.newCancellationScope(() -> call.add(Async.function(activities::chat, input)));
      scope.run();
      Workflow.sleep(Duration.ofSeconds(1));
      scope.cancel();
      try {
        return call.get(0).get();
      } catch (ActivityFailure failure) {
        return describe(failure);
      }
    }
  }

  /** Tenant and class come from the activity's Temporal Priority. */
  public static final class ByPriority implements ChatWorkflow {
    @Override
    public String chat(ChatInput input, long maxWaitMillis) {
      ActivityOptions options =
          ActivityOptions.newBuilder(options(0))
              .setPriority(
                  Priority.newBuilder().setPriorityKey(1).setFairnessKey(input.tenant()).build())
              .build();
      try {
        return Workflow.newActivityStub(ChatActivities.class, options).chatByPriority(input.mode());
      } catch (ActivityFailure failure) {
        return describe(failure);
      }
    }
  }
}
