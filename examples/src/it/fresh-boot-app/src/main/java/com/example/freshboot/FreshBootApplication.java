package com.example.freshboot;

import io.backpressure.core.Gate;
import io.backpressure.springai.BackpressureAdvisor;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** Starts, finds what the starter builds, and stops. */
@SpringBootApplication
public class FreshBootApplication {

  @Bean
  ChatClient chatClient(ChatClient.Builder builder, BackpressureAdvisor advisor) {
    return builder.defaultAdvisors(advisor).build();
  }

  public static void main(String[] args) {
    try (ConfigurableApplicationContext context =
        SpringApplication.run(FreshBootApplication.class, args)) {
      Gate gate = context.getBean(Gate.class);
      context.getBean(ChatClient.class);
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      System.out.println(
          "fresh Boot app started: gate "
              + gate.target()
              + ", "
              + registry.getMeters().size()
              + " meters");
    }
  }
}
