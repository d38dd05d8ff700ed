import "./styles.css";
import { startApp } from "./app";

startApp(document.getElementById("app")!);
