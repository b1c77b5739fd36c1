package com.acme;

import org.aspectj.lang.annotation.*;

@Aspect
public class Tracer {
    @Before("execution(* com.acme..*.*(..)) "
            + "&& exection(* *(..))")
    public void enter() {
    }
}
