// The default theme, with the site's colours (custom.css).
import DefaultTheme from "vitepress/theme";
import "./custom.css";

export default DefaultTheme;
