export { Alert, type AlertProps, type AlertTone } from './alert';
export { Badge, type BadgeTone } from './badge';
export {
  Button,
  ButtonLink,
  buttonClassName,
  type ButtonProps,
  type ButtonLinkProps,
  type ButtonVariant,
} from './button';
export { Card, type CardProps } from './card';
export { Chart, type ChartProps } from './chart';
export { CopyButton } from './copy-button';
export { ChartPanel, QueryFailure, type ChartPanelProps } from './chart-panel';
export { Field, useFieldControl, type FieldProps } from './field';
export { Input, type InputProps } from './input';
export { Modal, type ModalProps } from './modal';
export { PageTitle, type PageTitleProps } from './page-title';
export { Skeleton } from './skeleton';
export { Select, type SelectOption, type SelectProps } from './select';
export { Spinner } from './spinner';
export { StatTile, type StatTileProps } from './stat-tile';
export { Table, type SortDirection, type TableColumn, type TableProps, type TableSort } from './table';
export { Tabs, type TabItem } from './tabs';
export { TextArea, type TextAreaProps } from './textarea';
export { ToastProvider, useToast } from './toast';
