BlossJN©
¿