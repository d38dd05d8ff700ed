"""Classes: a teacher (server-issued credential) makes a class, learners join it with a code,
and the teacher reads the class's grid, mistake map and exports (README, "Classes")."""
