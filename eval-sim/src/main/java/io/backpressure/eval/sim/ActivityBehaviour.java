package io.backpressure.eval.sim;

/** What one configuration does with an activity once it holds a worker slot. */
@FunctionalInterface
interface ActivityBehaviour {

  /** The activity of {@code call} has just taken a slot. */
  void start(SimCall call);
}
